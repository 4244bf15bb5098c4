"""The basic operations from Python: MPI's semantics, every element checked, every dtype
family; a refused array raises on every rank."""
import numpy as np
import pytest
from conftest import same_everywhere
from mpi4py import MPI

import redist


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex128, np.uint8])
def test_operations(comm, dtype):
    rank, p = comm.Get_rank(), comm.Get_size()
    n = 5
    mine = (np.arange(n) + 10 * rank).astype(dtype)
    buf = mine.copy() if rank == 0 else np.zeros(n, dtype)
    redist.bcast(buf, 0, comm)
    assert np.array_equal(buf, np.arange(n).astype(dtype))
    total = sum((np.arange(n) + 10 * r) for r in range(p)).astype(dtype)
    assert np.array_equal(redist.allreduce(mine, comm), total)
    root_buf = np.zeros(n, dtype) if rank == p - 1 else None
    redist.reduce(mine, root_buf, p - 1, comm)
    if rank == p - 1:
        assert np.array_equal(root_buf, total)
    prefix = sum((np.arange(n) + 10 * r) for r in range(rank + 1)).astype(dtype)
    assert np.array_equal(redist.scan(mine, comm), prefix)
    gathered = redist.allgather(mine, comm)
    assert np.array_equal(gathered, np.concatenate([np.arange(n) + 10 * r for r in range(p)])
                          .astype(dtype))
    blocks = np.arange(p * n).astype(dtype) + 3 * rank  # block j goes to rank j
    got = redist.alltoall(blocks, comm)
    want = np.concatenate([np.arange(rank * n, rank * n + n) + 3 * r for r in range(p)])
    assert np.array_equal(got, want.astype(dtype))
    assert np.array_equal(redist.shift(mine, 1, comm),
                          (np.arange(n) + 10 * ((rank - 1) % p)).astype(dtype))
    piece = np.zeros(n, dtype)
    redist.scatter(np.arange(p * n).astype(dtype) if rank == 0 else None, piece, 0, comm)
    assert np.array_equal(piece, np.arange(rank * n, rank * n + n).astype(dtype))
    out = np.zeros(p * n, dtype) if rank == 0 else None
    redist.gather(mine, out, 0, comm)
    if rank == 0:
        assert np.array_equal(out, gathered)
    rs = redist.reduce_scatter(np.ones(p * n, dtype), comm)
    assert np.array_equal(rs, np.full(n, p).astype(dtype))


def test_refused_array_raises_everywhere(comm):
    rank, p = comm.Get_rank(), comm.Get_size()
    buf = np.zeros(8)
    if rank == p - 1:
        buf = np.zeros(16)[::2]  # strided
    code = 0
    try:
        redist.allreduce(buf, comm)
    except redist.Error as e:
        code = e.name
    assert same_everywhere(comm, code) and code == "REDIST_ERR_ARG"
    assert np.array_equal(redist.allreduce(np.ones(3), comm, op=MPI.MAX), np.ones(3))
