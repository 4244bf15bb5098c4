"""Plans on random block-cyclic pairs, every element checked against the global index; every
algorithm that applies; every numeric dtype; ranks that hold nothing; start/test/wait."""
import numpy as np
import pytest
from conftest import global_values, same_everywhere
from mpi4py import MPI

import redist

SEED = 20261127


def random_layout(rng, shape, nranks, order=None):
    """A random block-cyclic layout of shape over a random subset of the ranks, in random
    order, with random blocks and first coordinates."""
    nd = len(shape)
    p = int(rng.integers(1, nranks + 1))
    ranks = [int(r) for r in rng.permutation(nranks)[:p]]
    grid = [1] * nd
    q = p
    for f in range(2, p + 1):  # p's prime factors, round robin over the dimensions
        while q % f == 0:
            grid[int(rng.integers(0, nd))] *= f
            q //= f
    blocks = [int(rng.integers(1, max(2, s // 2 + 2))) for s in shape]
    first = [int(rng.integers(0, g)) for g in grid]
    order = order or ("C" if rng.integers(0, 2) else "F")
    return redist.BlockCyclic(shape, blocks, grid, order=order, first=first, ranks=ranks)


def check(comm, plan, src, dst, dtype):
    rank = comm.Get_rank()
    a = global_values(src, rank, dtype)
    want = global_values(dst, rank, dtype)
    b = plan(a)
    assert b.shape == want.shape
    assert np.array_equal(b, want), f"rank {rank}: wrong elements"
    return b


def test_random_pairs_every_algorithm(comm):
    rng = np.random.default_rng(SEED)
    runs = 0
    for case in range(12):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(rng.integers(0 if case == 3 else 1, 30)) for _ in range(nd))
        src = random_layout(rng, shape, comm.Get_size())
        dst = random_layout(rng, shape, comm.Get_size())
        for name in redist.algorithms():
            try:
                plan = redist.Plan(src, dst, np.float64, comm, algorithm=name)
            except redist.Error as e:
                assert e.name == "REDIST_ERR_NOT_APPLICABLE", f"{name}: {e}"
                assert same_everywhere(comm, e.code)
                continue
            with plan:
                check(comm, plan, src, dst, np.float64)
                runs += 1
    assert runs > 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64,
                                   np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64, np.bool_, np.float16, np.longdouble,
                                   np.clongdouble])
def test_every_dtype(comm, dtype):
    rng = np.random.default_rng(SEED + 1)
    src = random_layout(rng, (17, 13), comm.Get_size())
    dst = random_layout(rng, (17, 13), comm.Get_size())
    with redist.Plan(src, dst, dtype, comm) as plan:
        check(comm, plan, src, dst, dtype)


def test_ranks_that_hold_nothing(comm):
    """Both layouts on rank 0 alone: the others pass None and get an empty array back."""
    src = redist.BlockCyclic((10, 7), (3, 2), (1, 1), ranks=[0])
    dst = redist.BlockCyclic((10, 7), (4, 4), (1, 1), order="F", ranks=[0])
    rank = comm.Get_rank()
    with redist.Plan(src, dst, np.int32, comm) as plan:
        a = global_values(src, rank, np.int32) if rank == 0 else None
        b = plan(a)
        assert b.size == (70 if rank == 0 else 0)
        assert np.array_equal(b, global_values(dst, rank, np.int32))


def test_start_test_wait(comm):
    rng = np.random.default_rng(SEED + 2)
    src = random_layout(rng, (40, 9), comm.Get_size())
    dst = random_layout(rng, (40, 9), comm.Get_size())
    rank = comm.Get_rank()
    a = global_values(src, rank, np.complex128)
    want = global_values(dst, rank, np.complex128)
    with redist.Plan(src, dst, np.complex128, comm) as plan:
        b = plan.empty_output()
        plan.start(a, b)
        while not plan.test():
            pass
        assert np.array_equal(b, want)
        b2 = plan.empty_output()
        plan.start(a, b2)
        assert plan.wait() is b2
        assert np.array_equal(b2, want)
        st = plan.stats()
        assert st["steps"] >= 0 and plan.algorithm in redist.algorithms()


def test_scaling_and_permutation(comm):
    """dst = 2 src^T - 1 dst: a scaled transpose, every element checked."""
    rank = comm.Get_rank()
    p = comm.Get_size()
    src = redist.BlockCyclic((12, 20), (5, 3), (p, 1))
    dst = redist.BlockCyclic((20, 12), (4, 7), (1, p), order="F")
    with redist.Plan(src, dst, np.float64, comm, permutation=(1, 0), alpha=2.0,
                     beta=-1.0) as plan:
        a = global_values(src, rank, np.float64)
        b = np.ones(dst.local_shape(rank), order="F")
        plan(a, out=b)
        i, j = dst.global_index(rank)
        want = 2.0 * (j[None, :] * 20 + i[:, None]) - 1.0
        assert np.array_equal(b, want)


def test_redistribute_one_shot(comm):
    rank = comm.Get_rank()
    p = comm.Get_size()
    src = redist.BlockCyclic((33,), (4,), (p,))
    dst = redist.BlockCyclic((33,), (1,), (p,))
    b = redist.redistribute(global_values(src, rank, np.int64), src, dst, comm)
    assert np.array_equal(b, global_values(dst, rank, np.int64))


def test_gen_block(comm):
    rank = comm.Get_rank()
    p = comm.Get_size()
    sizes = [[(i * 7) % 5 + 1 for i in range(p)], [3] * 1]
    shape = (sum(sizes[0]), 3)
    src = redist.GenBlock(shape, sizes, (p, 1))
    dst = redist.BlockCyclic(shape, (2, 2), (1, p), order="F")
    with redist.Plan(src, dst, np.float32, comm) as plan:
        b = plan(global_values(src, rank, np.float32))
        assert np.array_equal(b, global_values(dst, rank, np.float32))


def test_new_arrays_each_execute(comm):
    """Arrays made and dropped between executes (their ids come back): every execute reads
    the array it is given, never a dead one's address."""
    rank, p = comm.Get_rank(), comm.Get_size()
    src = redist.BlockCyclic((30, 4), (3, 4), (p, 1))
    dst = redist.BlockCyclic((30, 4), (7, 1), (1, p), order="F")
    with redist.Plan(src, dst, np.float64, comm) as plan:
        for k in range(40):
            a = global_values(src, rank, np.float64) * (k + 1)
            b = plan(a)
            assert np.array_equal(b, global_values(dst, rank, np.float64) * (k + 1))
            del a, b
