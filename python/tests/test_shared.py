"""Node-shared local arrays (issue 30: layout.empty(..., shared=True), redist_alloc): NumPy
arrays that plans take as any other, freed collectively, refused while an execute on them is
in flight."""
import numpy as np
import pytest
from conftest import global_values, same_everywhere

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
