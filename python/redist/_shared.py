"""Node-shared local arrays (redist_alloc / redist_free): SharedArray."""
import ctypes

import numpy as np

from . import _args, _lib, _mpi
from ._agree import agreed
from ._errors import ERR_MISMATCH, Error, check

ORDERS = {"C": 0, "F": 1}  # REDIST_ROW_MAJOR, REDIST_COL_MAJOR


class _Allocation:
    """One redist_alloc allocation, shared by the array that owns it and its views: its base
    (None once freed), its communicator, and the buffer object NumPy's views of it lead to."""

    def __init__(self, base, comm, buffer):
        self.base, self.comm, self.buffer = base, comm, buffer

    def holds(self, a):
        """Whether array a lies in this live allocation (a view of it, not a copy): its
        chain of bases leads to the buffer (an address test would miss empty views, whose
        address may lie past the end)."""
        while isinstance(a, np.ndarray):
            a = a.base
        return self.base is not None and a is self.buffer


def _plain_unless_shared(r):
    """What NumPy made from a SharedArray: a plain ndarray unless it lies in the allocation
    (a view); a copy or a result in ordinary memory must not pass for shared memory."""
    if isinstance(r, SharedArray) and not (r._redist_alloc and r._redist_alloc.holds(r)):
        return r.view(np.ndarray)
    return r


def _creation_args(shape, dtype, order, extra):
    """(shape, dtype, bytes) of a SharedArray, checked (local)."""
    if extra:
        raise TypeError(f"redist: shared=True takes no {', '.join(sorted(extra))} (the "
                        "layout gives the order, redist_alloc the memory)")
    shape = _args.integers(shape, "shape", bounds=_args.INT64)
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        raise TypeError(f"redist: dtype {dtype} holds Python objects: not in shared memory")
    _args.choice(order, "order", ORDERS)
    return shape, dtype, _args.nbytes(shape, dtype.itemsize)


class SharedArray(np.ndarray):
    """A NumPy array in node-shared memory (redist_alloc over comm, collective): plans copy
    on-node traffic between such arrays once. free() is collective over comm (redist_free),
    as is leaving a with block; garbage collection never frees it (a collective there could
    hang): an array dropped without free() stays allocated until MPI_Finalize.

    Only the array made here owns the allocation. A view of it (slice, reshape, transpose)
    lies in the same memory and stays a SharedArray (plans copy once from it too) that owns
    nothing: valid until the array is freed, its free() refused. What NumPy computes from it
    (a + 1, a.copy(), np.sin(a), a[[0, 2]]) is in ordinary memory: a plain numpy.ndarray."""

    def __new__(cls, shape, dtype, comm, order="C"):
        return cls._allocate(shape, dtype, comm, order)

    @classmethod
    def _allocate(cls, shape, dtype, comm, order, extra=()):
        """The array, its arguments agreed over comm before redist_alloc (collective)."""
        made = []
        agreed(comm, lambda: made.append(_creation_args(shape, dtype, order, extra)))
        shape, dtype, nbytes = made[0]
        base = ctypes.c_void_p()
        check(_lib.alloc(_mpi.handle(comm), nbytes, ctypes.byref(base)))
        buf = (ctypes.c_char * max(nbytes, 1)).from_address(base.value)
        a = np.ndarray.__new__(cls, shape, dtype=dtype, buffer=buf, order=order)
        a._redist_alloc = _Allocation(base.value, comm, buf)
        a._redist_base = base.value
        a._redist_owner = True
        return a

    def __array_finalize__(self, obj):
        self._redist_alloc = getattr(obj, "_redist_alloc", None)
        self._redist_base = None  # views and copies own nothing
        self._redist_owner = False

    def __array_wrap__(self, obj, context=None, *rest):
        return _plain_unless_shared(super().__array_wrap__(obj, context, *rest))

    def __getitem__(self, key):
        return _plain_unless_shared(super().__getitem__(key))

    def copy(self, order="C"):
        return super().copy(order).view(np.ndarray)

    def astype(self, *args, **kwargs):
        return _plain_unless_shared(super().astype(*args, **kwargs))

    def flatten(self, order="C"):
        return super().flatten(order).view(np.ndarray)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        return self.view(np.ndarray).__reduce__()  # a pickled copy is not in shared memory

    def _free_state(self):
        """This rank's part in free(): "free" (it owns a live allocation), "freed" (it owned
        one, freed), or raises why it cannot."""
        if self._redist_base is not None:
            return "free"
        if self._redist_owner:
            return "freed"
        if self._redist_alloc is not None and self._redist_alloc.holds(self):
            raise ValueError("redist: this SharedArray is a view of another (a slice, "
                             "reshape or transpose) and owns nothing: free the array it views")
        raise ValueError("redist: this array owns no shared memory (a copy, or freed with "
                         "the array it viewed): nothing to free")

    def free(self):
        """Frees the allocation (collective over its comm: every rank calls it, and the
        ranks' arrays are agreed first). Calling it again does nothing; refused (BUSY) while
        an execute on it is in flight, the array still owns it: free it after wait(). The
        array must not be used after."""
        alloc = self._redist_alloc
        if alloc is None:
            raise ValueError("redist: this array was not made by redist_alloc: nothing to free")
        states = agreed(alloc.comm, self._free_state)
        if states == {"freed"}:
            return
        if states != {"free"}:
            raise Error(ERR_MISMATCH, "some ranks freed this array already, others not")
        check(_lib.free_shared(self._redist_base))  # BUSY on every rank: still owned
        self._redist_base = alloc.base = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
