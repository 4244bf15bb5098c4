"""mpi4py's handles as the C library takes them, and NumPy dtypes as MPI datatypes."""
import ctypes

import numpy as np
from mpi4py import MPI

from . import _args, _lib

# MPI_Comm and MPI_Datatype are pointers in Open MPI and ints in MPICH: mpi4py says which.
HANDLE = ctypes.c_void_p if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_void_p) \
    else ctypes.c_int
_lib.bind_mpi(HANDLE)


def handle(obj):
    """The C handle of an mpi4py Comm or Datatype."""
    return HANDLE(MPI._handleof(obj))


# options.reduce by name: MPI's predefined reductions
OPS = {"sum": MPI.SUM, "prod": MPI.PROD, "max": MPI.MAX, "min": MPI.MIN, "land": MPI.LAND,
       "lor": MPI.LOR, "lxor": MPI.LXOR, "band": MPI.BAND, "bor": MPI.BOR, "bxor": MPI.BXOR}


def op_storage(op, what="reduce"):
    """The int64 that redist_options.reduce holds for an op given by name (OPS) or as an
    mpi4py MPI.Op (predefined or MPI.Op.Create's): its MPI_Op handle, a pointer (Open MPI)
    or an int (MPICH), as a signed 64-bit value."""
    if isinstance(op, str):
        op = _args.choice(op, what, OPS)
    elif not isinstance(op, MPI.Op):
        raise TypeError(f"redist: {what} must be an op's name or an mpi4py MPI.Op, not "
                        f"{type(op).__name__}")
    return _storage(op)


def _storage(op):
    h = MPI._handleof(op)
    return h - 2 ** 64 if h >= 2 ** 63 else h


# The dtypes MPI defines each predefined op on (MPI 4.0 6.9.2, as the library checks them:
# src/coll/reducer.c), by NumPy kind: i, u integers, f floating point, c complex, b bool
# (logical), B float16 (moved as 2 MPI_BYTEs: the byte ops apply). MAXLOC and MINLOC take
# value-index pairs, none of the dtypes here; REPLACE and NO_OP are for MPI_Accumulate only.
_OP_KINDS = {"sum": "iufc", "prod": "iufc", "max": "iuf", "min": "iuf", "land": "iub",
             "lor": "iub", "lxor": "iub", "band": "iuB", "bor": "iuB", "bxor": "iuB"}


def op_refusal(storage, dtype):
    """Why MPI does not define the predefined op of options.reduce's storage on dtype (None:
    it does, or the op is the user's, which takes any type), as plan creation refuses it."""
    if storage == _storage(MPI.OP_NULL):
        return None
    named = {_storage(op): name for name, op in OPS.items()}
    others = {_storage(MPI.MAXLOC): "MPI_MAXLOC", _storage(MPI.MINLOC): "MPI_MINLOC",
              _storage(MPI.REPLACE): "MPI_REPLACE", _storage(MPI.NO_OP): "MPI_NO_OP"}
    dt = np.dtype(dtype)
    if storage in others:
        return (f"options.reduce: op {others[storage]} is not defined on {dt} (MPI_MAXLOC and "
                "MPI_MINLOC take value-index pairs, MPI_REPLACE and MPI_NO_OP are for "
                "one-sided accumulates only)")
    name = named.get(storage)
    kind = "B" if dt == np.dtype(np.float16) else dt.kind
    if name is None or kind in _OP_KINDS[name]:
        return None
    return (f"options.reduce: op MPI_{name.upper()} is not defined on {dt} (MPI 4.0 6.9.2: a "
            "predefined op applies to the predefined types of its classes)")


_TYPES = {
    np.dtype(np.float64): MPI.DOUBLE,
    np.dtype(np.float32): MPI.FLOAT,
    np.dtype(np.complex128): MPI.C_DOUBLE_COMPLEX,
    np.dtype(np.complex64): MPI.C_FLOAT_COMPLEX,
    np.dtype(np.int8): MPI.INT8_T,
    np.dtype(np.int16): MPI.INT16_T,
    np.dtype(np.int32): MPI.INT32_T,
    np.dtype(np.int64): MPI.INT64_T,
    np.dtype(np.uint8): MPI.UINT8_T,
    np.dtype(np.uint16): MPI.UINT16_T,
    np.dtype(np.uint32): MPI.UINT32_T,
    np.dtype(np.uint64): MPI.UINT64_T,
    np.dtype(np.bool_): MPI.C_BOOL,
    np.dtype(np.longdouble): MPI.LONG_DOUBLE,
    np.dtype(np.clongdouble): MPI.C_LONG_DOUBLE_COMPLEX,
}
_made = {}


def datatype(dtype):
    """The MPI datatype of a NumPy dtype: every numeric dtype (float16 as 2 bytes: moved, not
    scaled); others raise TypeError."""
    dt = np.dtype(dtype)
    if dt.byteorder not in ("=", "|") and dt != dt.newbyteorder("="):
        raise TypeError(f"redist: dtype {dt} is not in the machine's byte order")
    dt = dt.newbyteorder("=") if dt.byteorder == ">" or dt.byteorder == "<" else dt
    if dt in _TYPES:
        return _TYPES[dt]
    if dt == np.dtype(np.float16):
        if dt not in _made:
            t = MPI.BYTE.Create_contiguous(2)
            t.Commit()
            _made[dt] = t
        return _made[dt]
    raise TypeError(f"redist: dtype {dt} is not numeric (bool, integers, floats and complex "
                    "of every size are)")
