"""The basic communication operations ([GGKK03] on point-to-point MPI; include/redist.h):
NumPy arrays, counts and types from the arrays, MPI's semantics. Collective: every rank
raises redist.Error with the same code. Every argument is checked here first (arrays, their
lengths against the count the call reads, root, op, algorithm); a rank that refuses one
still makes the call, with a count the library refuses (-1), so that its argument agreement
fails on every rank: REDIST_ERR_ARG everywhere, this rank's detail saying why, and no rank
left waiting."""
import re

import numpy as np
from mpi4py import MPI

from . import _args, _lib, _mpi
from ._errors import ERR_ARG, Error


class _Call:
    """One operation's arguments, checked: what to pass, and why this rank refused any."""

    def __init__(self, comm, algorithm):
        self.comm, self.whys, self.dtype, self.first = comm, [], None, None
        self.alg = None
        if algorithm is not None:
            self.alg = self._guard(lambda: _args.text(algorithm, "algorithm"))

    def _guard(self, convert, fallback=None):
        try:
            return convert()
        except (TypeError, ValueError, OverflowError) as e:
            self.whys.append(str(e).removeprefix("redist: "))
            return fallback

    def array(self, a, role, writable=False, need=0):
        """a's address: a contiguous NumPy array of the call's dtype (its first array's) and
        at least `need` elements; None where refused."""
        why = _array_refusal(a, role, writable, need)
        if why is None and self.dtype is None:
            if a.dtype.hasobject or _datatype(a.dtype) is None:
                why = f"{role} has dtype {a.dtype}, which is not numeric"
            else:
                self.dtype, self.first = a.dtype, role
        elif why is None and a.dtype != self.dtype:
            why = f"{role} has dtype {a.dtype}, {self.first} {self.dtype}"
        if why is not None:
            self.whys.append(why)
            return None
        return a.__array_interface__["data"][0]

    def int(self, value, what):
        return self._guard(lambda: _args.integer(value, what), 0)

    def op(self, op):
        if isinstance(op, MPI.Op):
            return _mpi.handle(op)
        self.whys.append(f"op is a {type(op).__name__}, not an mpi4py MPI.Op")
        return _mpi.handle(MPI.SUM)

    def run(self, name, send, recv, count, extra):
        """The C call; refused here: a count of -1, which every rank's agreement refuses."""
        refused = bool(self.whys)
        t = MPI.BYTE if refused or self.dtype is None else _datatype(self.dtype)
        args = [] if send is _NOSEND else [None if refused else send]
        args += [None if refused else recv, -1 if refused else count, _mpi.handle(t)]
        code = _lib.coll[name](*args, *extra, _mpi.handle(self.comm), self.alg)
        if refused:
            raise Error(code or ERR_ARG, "; ".join(self.whys))
        if code != 0:
            raise Error(code, _their_refusal(_lib.last_error_detail().decode()))


def _their_refusal(detail):
    """The library's detail, where another rank's refusal shows as the count it passed for
    it (-1: none of the package's own counts): which rank, and that its error says why."""
    m = _REFUSED.fullmatch(detail)
    return f"rank {m.group(1)} refused its arguments: its own error says why" if m else detail


_REFUSED = re.compile(r"rank (\d+): count = -1 must be >= 0")


_NOSEND = object()


def _datatype(dtype):
    try:
        return _mpi.datatype(dtype)
    except TypeError:
        return None


def _array_refusal(a, role, writable, need):
    """Why array a cannot be passed (None: it can)."""
    if not isinstance(a, np.ndarray):
        return f"{role} is {'None' if a is None else 'a ' + type(a).__name__}, not a NumPy array"
    if not (a.flags.c_contiguous or a.flags.f_contiguous):
        return f"{role} is not contiguous: redist never copies an array silently"
    if writable and not a.flags.writeable:
        return f"{role} is read-only"
    if a.size < need:
        return f"{role} has {a.size} elements, fewer than the {need} the call reads or writes"
    return None


def _size(a):
    return a.size if isinstance(a, np.ndarray) else 0


def _like(a, n=None):
    """A receive array for sendbuf a (n elements, default a's size); None where a is not an
    array (refused: the call raises)."""
    if not isinstance(a, np.ndarray):
        return None
    return np.empty_like(a) if n is None else np.empty(n, a.dtype)


def bcast(buf, root, comm, algorithm=None):
    """buf (root's) to every rank's buf, in place."""
    c = _Call(comm, algorithm)
    root = c.int(root, "root")
    p = c.array(buf, "buf", True)
    c.run("bcast", _NOSEND, p, _size(buf), [root])
    return buf


def _reduction(name, sendbuf, recvbuf, op, comm, algorithm, count, root=None):
    """reduce (at root), allreduce, scan, reduce_scatter: op over count elements per rank
    into recvbuf."""
    c = _Call(comm, algorithm)
    r = None if root is None else c.int(root, "root")
    s = c.array(sendbuf, "sendbuf")
    receives = root is None or comm.Get_rank() == r
    rp = c.array(recvbuf, "recvbuf", True, count) if receives else None
    h = c.op(op)
    c.run(name, s, rp, count, [h] if root is None else [h, r])
    return recvbuf


def reduce(sendbuf, recvbuf, root, comm, op=MPI.SUM, algorithm=None):
    """Elementwise op of every rank's sendbuf into root's recvbuf (None elsewhere)."""
    return _reduction("reduce", sendbuf, recvbuf, op, comm, algorithm, _size(sendbuf), root)


def allreduce(sendbuf, comm, op=MPI.SUM, recvbuf=None, algorithm=None):
    recvbuf = _like(sendbuf) if recvbuf is None else recvbuf
    return _reduction("allreduce", sendbuf, recvbuf, op, comm, algorithm, _size(sendbuf))


def scan(sendbuf, comm, op=MPI.SUM, recvbuf=None, algorithm=None):
    """Inclusive prefix op over the ranks."""
    recvbuf = _like(sendbuf) if recvbuf is None else recvbuf
    return _reduction("scan", sendbuf, recvbuf, op, comm, algorithm, _size(sendbuf))


def reduce_scatter(sendbuf, comm, op=MPI.SUM, recvbuf=None, algorithm=None):
    """Rank i gets the reduced block i of sendbuf (p blocks of sendbuf.size / p)."""
    count = _size(sendbuf) // comm.Get_size()
    recvbuf = _like(sendbuf, count) if recvbuf is None else recvbuf
    return _reduction("reduce_scatter", sendbuf, recvbuf, op, comm, algorithm, count)


def _move(name, c, sendbuf, recvbuf, count, extra):
    """scatter, gather, allgather, alltoall, shift: sendbuf's blocks of count elements to
    recvbuf. sendbuf, recvbuf: (array, the elements it must hold, or None where the call
    does not read it: a rooted call's side that only the root passes)."""
    (sa, sn), (ra, rn) = sendbuf, recvbuf
    r = c.array(ra, "recvbuf", True, rn) if rn is not None else None
    s = c.array(sa, "sendbuf", False, sn) if sn is not None else None
    c.run(name, s, r, count, extra)
    return ra


def _rooted(root, comm, blocks):
    """The elements the root's own side holds (p blocks), None elsewhere."""
    return blocks * comm.Get_size() if comm.Get_rank() == root else None


def scatter(sendbuf, recvbuf, root, comm, algorithm=None):
    """Block i of root's sendbuf (p blocks of recvbuf.size) to rank i's recvbuf."""
    c = _Call(comm, algorithm)
    root = c.int(root, "root")
    count = _size(recvbuf)
    return _move("scatter", c, (sendbuf, _rooted(root, comm, count)), (recvbuf, count),
                 count, [root])


def gather(sendbuf, recvbuf, root, comm, algorithm=None):
    """Every rank's sendbuf to block i of root's recvbuf (None elsewhere)."""
    c = _Call(comm, algorithm)
    root = c.int(root, "root")
    count = _size(sendbuf)
    return _move("gather", c, (sendbuf, count), (recvbuf, _rooted(root, comm, count)),
                 count, [root])


def allgather(sendbuf, comm, recvbuf=None, algorithm=None):
    count = _size(sendbuf)
    if recvbuf is None:
        recvbuf = _like(sendbuf, count * comm.Get_size())
    c = _Call(comm, algorithm)
    return _move("allgather", c, (sendbuf, count), (recvbuf, count * comm.Get_size()), count,
                 [])


def alltoall(sendbuf, comm, recvbuf=None, algorithm=None):
    """Block j of rank i's sendbuf to block i of rank j's recvbuf (p blocks each)."""
    recvbuf = _like(sendbuf) if recvbuf is None else recvbuf
    p = comm.Get_size()
    count = _size(sendbuf) // p
    c = _Call(comm, algorithm)
    return _move("alltoall", c, (sendbuf, count * p), (recvbuf, count * p), count, [])


def shift(sendbuf, shift_by, comm, recvbuf=None, algorithm=None):
    """Rank i's sendbuf to rank (i + shift_by) mod p's recvbuf."""
    recvbuf = _like(sendbuf) if recvbuf is None else recvbuf
    c = _Call(comm, algorithm)
    by = c.int(shift_by, "shift_by")
    count = _size(sendbuf)
    return _move("shift", c, (sendbuf, count), (recvbuf, count), count, [by])
