"""mpi4py's handles as the C library takes them, and NumPy dtypes as MPI datatypes."""
import ctypes

import numpy as np
from mpi4py import MPI

from . import _lib

# MPI_Comm and MPI_Datatype are pointers in Open MPI and ints in MPICH: mpi4py says which.
HANDLE = ctypes.c_void_p if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_void_p) \
    else ctypes.c_int
_lib.bind_mpi(HANDLE)


def handle(obj):
    """The C handle of an mpi4py Comm or Datatype."""
    return HANDLE(MPI._handleof(obj))


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
