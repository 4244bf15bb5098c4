"""The basic communication operations ([GGKK03] on point-to-point MPI; include/redist.h):
NumPy arrays, counts and types from the arrays, MPI's semantics. Collective: every rank
raises redist.Error with the same code (an array this rank refuses goes to the library as
NULL with its count, which the library's argument agreement refuses on every rank)."""
import numpy as np
from mpi4py import MPI

from . import _lib, _mpi
from ._core import ERR_ARG, Error


def _buf(a, role, writable=False):
    """(address or None, why refused or None) of a contiguous NumPy array."""
    if a is None:
        return None, None
    if not isinstance(a, np.ndarray):
        return None, f"{role} is {type(a).__name__}, not a NumPy array"
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        return None, f"{role} is not contiguous: redist never copies an array silently"
    if writable and not a.flags.writeable:
        return None, f"{role} is read-only"
    return a.__array_interface__["data"][0], None


def _call(name, comm, send, recv, count, dtype, extra, algorithm, why):
    fn = _lib.coll[name]
    alg = algorithm.encode() if algorithm else None
    t = _mpi.handle(_mpi.datatype(dtype))
    args = ([] if send is _NOSEND else [send]) + [recv, int(count), t] + extra \
        + [_mpi.handle(comm), alg]
    code = fn(*args)
    if why is not None:  # refused here: the library saw NULL, every rank got an error
        raise Error(code or ERR_ARG, why)
    if code != 0:
        raise Error(code)


_NOSEND = object()


def _same_dtype(*arrays):
    dts = {a.dtype for a in arrays if isinstance(a, np.ndarray)}
    return dts.pop() if len(dts) == 1 else None


def bcast(buf, root, comm, algorithm=None):
    """buf (root's) to every rank's buf, in place."""
    p, why = _buf(buf, "buf", True)
    _call("bcast", comm, _NOSEND, p, buf.size, buf.dtype, [int(root)], algorithm, why)
    return buf


def _op_call(name, sendbuf, recvbuf, op, comm, algorithm, extra_first, count):
    s, w1 = _buf(sendbuf, "sendbuf")
    r, w2 = _buf(recvbuf, "recvbuf", True)
    why = w1 or w2
    if why is None and recvbuf is not None and recvbuf.dtype != sendbuf.dtype:
        why = f"recvbuf has dtype {recvbuf.dtype}, sendbuf {sendbuf.dtype}"
    extra = extra_first + [_mpi.handle(op)] if name != "reduce" else [_mpi.handle(op)] + extra_first
    _call(name, comm, s if why is None else None, r if why is None else None, count,
          sendbuf.dtype, extra, algorithm, why)
    return recvbuf


def reduce(sendbuf, recvbuf, root, comm, op=MPI.SUM, algorithm=None):
    """Elementwise op of every rank's sendbuf into root's recvbuf (None elsewhere)."""
    return _op_call("reduce", sendbuf, recvbuf, op, comm, algorithm, [int(root)], sendbuf.size)


def allreduce(sendbuf, comm, op=MPI.SUM, recvbuf=None, algorithm=None):
    recvbuf = np.empty_like(sendbuf) if recvbuf is None else recvbuf
    return _op_call("allreduce", sendbuf, recvbuf, op, comm, algorithm, [], sendbuf.size)


def scan(sendbuf, comm, op=MPI.SUM, recvbuf=None, algorithm=None):
    """Inclusive prefix op over the ranks."""
    recvbuf = np.empty_like(sendbuf) if recvbuf is None else recvbuf
    return _op_call("scan", sendbuf, recvbuf, op, comm, algorithm, [], sendbuf.size)


def reduce_scatter(sendbuf, comm, op=MPI.SUM, recvbuf=None, algorithm=None):
    """Rank i gets the reduced block i of sendbuf (p blocks of sendbuf.size / p)."""
    p = comm.Get_size()
    recvbuf = np.empty(sendbuf.size // p, sendbuf.dtype) if recvbuf is None else recvbuf
    return _op_call("reduce_scatter", sendbuf, recvbuf, op, comm, algorithm, [],
                    sendbuf.size // p)


def _move(name, sendbuf, recvbuf, count, extra, comm, algorithm):
    s, w1 = _buf(sendbuf, "sendbuf")
    r, w2 = _buf(recvbuf, "recvbuf", True)
    why = w1 or w2
    dtype = sendbuf.dtype if isinstance(sendbuf, np.ndarray) else recvbuf.dtype
    if why is None and _same_dtype(sendbuf, recvbuf) is None and sendbuf is not None \
            and recvbuf is not None:
        why = f"recvbuf has dtype {recvbuf.dtype}, sendbuf {sendbuf.dtype}"
    _call(name, comm, s if why is None else None, r if why is None else None, count, dtype,
          extra, algorithm, why)
    return recvbuf


def scatter(sendbuf, recvbuf, root, comm, algorithm=None):
    """Block i of root's sendbuf (p blocks of recvbuf.size) to rank i's recvbuf."""
    return _move("scatter", sendbuf, recvbuf, recvbuf.size, [int(root)], comm, algorithm)


def gather(sendbuf, recvbuf, root, comm, algorithm=None):
    """Every rank's sendbuf to block i of root's recvbuf (None elsewhere)."""
    return _move("gather", sendbuf, recvbuf, sendbuf.size, [int(root)], comm, algorithm)


def allgather(sendbuf, comm, recvbuf=None, algorithm=None):
    if recvbuf is None:
        recvbuf = np.empty(sendbuf.size * comm.Get_size(), sendbuf.dtype)
    return _move("allgather", sendbuf, recvbuf, sendbuf.size, [], comm, algorithm)


def alltoall(sendbuf, comm, recvbuf=None, algorithm=None):
    """Block j of rank i's sendbuf to block i of rank j's recvbuf (p blocks each)."""
    recvbuf = np.empty_like(sendbuf) if recvbuf is None else recvbuf
    return _move("alltoall", sendbuf, recvbuf, sendbuf.size // comm.Get_size(), [], comm,
                 algorithm)


def shift(sendbuf, shift_by, comm, recvbuf=None, algorithm=None):
    """Rank i's sendbuf to rank (i + shift_by) mod p's recvbuf."""
    recvbuf = np.empty_like(sendbuf) if recvbuf is None else recvbuf
    return _move("shift", sendbuf, recvbuf, sendbuf.size, [int(shift_by)], comm, algorithm)
