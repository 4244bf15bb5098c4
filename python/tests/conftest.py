"""The package's tests run under mpiexec at 1 to 4 ranks (make python-check): every rank runs
every test, and every test's collective calls are made by every rank in the same order."""
import numpy as np
import pytest
from mpi4py import MPI

import redist


@pytest.fixture
def comm():
    return MPI.COMM_WORLD


def global_values(layout, rank, dtype):
    """rank's local array of layout filled from the global index: element (g_0 .. g_{d-1})
    holds its row-major global position (as dtype: small integers for narrow types)."""
    idx = layout.global_index(rank)
    lin = np.zeros([len(i) for i in idx], dtype=np.int64)
    stride = 1
    for k in reversed(range(layout.ndim)):
        shape = [1] * layout.ndim
        shape[k] = len(idx[k])
        lin = lin + idx[k].reshape(shape) * stride
        stride *= layout.shape[k]
    a = np.empty(lin.shape, dtype=dtype, order=layout.order)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        a[...] = (lin % 3) == 1
    elif dt.kind in "iu":
        a[...] = lin % min(127, np.iinfo(dt).max)
    elif dt.kind == "c":
        a[...] = lin + 1j * (lin % 7)
    else:
        a[...] = lin % 2048 if dt.itemsize == 2 else lin
    return a


def same_everywhere(comm, value):
    """True if value is the same on every rank (collective)."""
    return len(set(comm.allgather(value))) == 1
