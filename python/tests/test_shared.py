"""Node-shared local arrays (layout.empty(..., shared=True), redist_alloc): NumPy
arrays that plans take as any other, freed collectively, refused while an execute on them is
in flight."""
import numpy as np
import pytest
from conftest import everywhere, global_values, same_everywhere

import redist


def layouts(p):
    return (redist.BlockCyclic((37, 11), (3, 2), (p, 1)),
            redist.BlockCyclic((37, 11), (5, 4), (1, p), order="F"))


@pytest.mark.parametrize("dtype", [np.float64, np.complex64, np.int16])
def test_shared_arrays_in_a_plan(comm, dtype):
    src, dst = layouts(comm.Get_size())
    rank = comm.Get_rank()
    with src.empty(dtype, comm, shared=True) as a, dst.empty(dtype, comm, shared=True) as b:
        assert isinstance(a, redist.SharedArray) and a.ctypes.data % 64 == 0
        assert b.flags.f_contiguous and b.shape == dst.local_shape(rank)
        a[...] = global_values(src, rank, dtype)
        with redist.Plan(src, dst, dtype, comm) as plan:
            plan(a, out=b)
        assert np.array_equal(b, global_values(dst, rank, dtype))


def test_free_while_in_flight(comm):
    src, dst = layouts(comm.Get_size())
    rank = comm.Get_rank()
    a = src.empty(np.float64, comm, shared=True)
    b = dst.empty(np.float64, comm, shared=True)
    a[...] = global_values(src, rank, np.float64)
    with redist.Plan(src, dst, np.float64, comm) as plan:
        plan.start(a, b)
        try:
            a.free()
            code = 0
        except redist.Error as e:
            code = e.name
        assert same_everywhere(comm, code) and code == "REDIST_ERR_BUSY"
        plan.wait()
    assert np.array_equal(b, global_values(dst, rank, np.float64))
    a.free()
    b.free()
    b.free()  # a second free does nothing


def test_zero_bytes_and_views(comm):
    a = redist.SharedArray((0, 3), np.float64, comm)
    v = a[:, 1:]
    assert v._redist_base is None  # a view owns nothing
    a.free()


def freed_in_c(base):
    """Whether C's redist_free(base) says base's allocation was freed already (collective: a
    live allocation is freed by it, which the caller then reports)."""
    code = redist._lib.free_shared(base)
    return code != 0 and "freed already" in redist._lib.last_error_detail().decode()


def test_a_refused_free_keeps_the_allocation(comm):
    """free() refused while an execute is in flight (REDIST_ERR_BUSY), as is leaving a with
    block then: the array still owns its allocation, and free() after wait() frees it."""
    src, dst = layouts(comm.Get_size())
    rank = comm.Get_rank()
    a = src.empty(np.float64, comm, shared=True)
    b = dst.empty(np.float64, comm, shared=True)
    a[...] = global_values(src, rank, np.float64)
    base_a, base_b = a._redist_base, b._redist_base
    with redist.Plan(src, dst, np.float64, comm) as plan:
        plan.start(a, b)
        with pytest.raises(redist.Error) as e:
            a.free()
        assert e.value.name == "REDIST_ERR_BUSY" and a._redist_base == base_a
        with pytest.raises(redist.Error) as e:
            with b:
                pass  # leaving the block frees b: refused
        assert e.value.name == "REDIST_ERR_BUSY" and b._redist_base == base_b
        plan.wait()
    assert np.array_equal(b, global_values(dst, rank, np.float64))
    a.free()
    b.free()
    assert a._redist_base is None and b._redist_base is None
    assert same_everywhere(comm, (freed_in_c(base_a), freed_in_c(base_b)))
    assert freed_in_c(base_a) and freed_in_c(base_b)


def test_operations_give_plain_arrays(comm):
    """What NumPy computes from a SharedArray is not in shared memory: a plain ndarray, with
    no free(); a view is in the array's memory: a SharedArray that owns nothing, whose free()
    is refused on every rank (free the array itself)."""
    a = redist.SharedArray((4, 3), np.float64, comm)
    a[...] = np.arange(12.0).reshape(4, 3)
    for r in (a + 1, a.copy(), np.sin(a), a.sum(axis=0), a.astype(np.float32), a[[0, 2]],
              a * a, abs(a), np.copy(a), a.flatten(), a.T.copy(), np.concatenate([a, a]),
              a[a > 2]):
        assert type(r) is np.ndarray, type(r)
        assert not np.shares_memory(r, a)
    assert np.array_equal(a + 1, np.arange(12.0).reshape(4, 3) + 1)
    a += 1  # in place: a stays the array it was
    assert isinstance(a, redist.SharedArray) and a._redist_base is not None
    np.add(a, 1, out=a)
    assert a[0, 0] == 2
    for v in (a[1:], a.T, a.reshape(3, 4), a[:, 0]):
        assert isinstance(v, redist.SharedArray) and np.shares_memory(v, a)
        assert v._redist_base is None  # owns nothing
    v = a[1:]
    everywhere(comm, v.free, "ValueError")
    with pytest.raises(ValueError):
        with a[:2]:
            pass
    a.free()
    a.free()  # again: nothing
