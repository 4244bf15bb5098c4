"""The package's tests run under mpiexec at 1 to 4 ranks (make python-check): every rank runs
every test, and every test's collective calls are made by every rank in the same order."""
import contextlib

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


def outcome(fn):
    """What fn() did: "ok", a redist.Error's name, or another exception's class name."""
    try:
        fn()
        return "ok"
    except redist.Error as e:
        return e.name
    except Exception as e:  # noqa: BLE001 - the class is what the tests compare
        return type(e).__name__


def refused(call, exc, words, what=""):
    """call() raises exc, whose message holds every one of words (the argument's name, the
    accepted values, ...)."""
    with pytest.raises(exc) as e:
        call()
    for w in words:
        assert w in str(e.value), (what, w, str(e.value))


def everywhere(comm, fn, want):
    """fn() (collective) ends as `want` (see outcome) on every rank: no rank raises alone,
    which would leave the others waiting in a collective call (collective itself)."""
    got = outcome(fn)
    seen = comm.allgather(got)
    assert len(set(seen)) == 1, f"ranks disagree: {seen}"
    assert got == want, f"{got}, expected {want}"


@contextlib.contextmanager
def two_groups(comm, tag):
    """(intercommunicator, is_source, src, dst): world ranks 0 .. k-1 (k = p // 2) the source
    group, the others the destination group, and a 9 x 4 layout over each; freed on exit.
    Skips at 1 rank, where there are no two groups."""
    p, rank = comm.Get_size(), comm.Get_rank()
    if p < 2:
        pytest.skip("an intercommunicator needs two groups: 2 ranks or more")
    k = p // 2
    is_source = rank < k
    group = comm.Split(int(is_source), rank)
    inter = group.Create_intercomm(0, comm, k if is_source else 0, tag)
    try:
        yield (inter, is_source, redist.BlockCyclic((9, 4), (2, 2), (k, 1)),
               redist.BlockCyclic((9, 4), (3, 1), (p - k, 1)))
    finally:
        inter.Free()
        group.Free()
