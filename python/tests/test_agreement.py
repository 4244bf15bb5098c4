"""Checks that can fail on some ranks only are agreed before any collective call, as the C
library agrees its own: every rank raises (the same exception class) and none waits for ever.
The case that differs is on the last rank, so at 1 rank it is on every rank (still agreed,
and still the same outcome)."""
import numpy as np
import pytest
from conftest import everywhere, global_values, two_groups
from mpi4py import MPI

import redist


def spread(shape, p, order="C"):
    """shape over every rank, along the first dimension."""
    return redist.BlockCyclic(shape, (2,) + (1,) * (len(shape) - 1), (p,) + (1,) * (len(shape) - 1),
                              order=order)


def test_one_shot_none_learns_the_dtype(comm):
    """Rank 0 holds the whole source, the others pass None and no dtype: they learn it from
    rank 0 (at 1 rank rank 0 holds both sides)."""
    rank, p = comm.Get_rank(), comm.Get_size()
    src = redist.BlockCyclic((10, 4), (3, 2), (1, 1), ranks=[0])
    dst = spread((10, 4), p, order="F")
    a = global_values(src, rank, np.float32) if rank == 0 else None
    b = redist.redistribute(a, src, dst, comm)
    assert b.dtype == np.float32
    assert np.array_equal(b, global_values(dst, rank, np.float32))


def test_one_shot_no_rank_passes_an_array(comm):
    src = redist.BlockCyclic((10, 4), (3, 2), (1, 1), ranks=[0])
    dst = spread((10, 4), comm.Get_size())
    everywhere(comm, lambda: redist.redistribute(None, src, dst, comm), "TypeError")


def test_one_shot_dtypes_differ(comm):
    """float32 on the last rank, int32 (the same size) elsewhere: a mismatch on every rank
    (at 1 rank there is one dtype: it runs)."""
    rank, p = comm.Get_rank(), comm.Get_size()
    src, dst = spread((12, 3), p), spread((12, 3), p, order="F")
    dt = np.float32 if rank == p - 1 and p > 1 else np.int32
    a = global_values(src, rank, dt)
    everywhere(comm, lambda: redist.redistribute(a, src, dst, comm),
               "REDIST_ERR_MISMATCH" if p > 1 else "ok")
    everywhere(comm, lambda: redist.Plan(src, dst, dt, comm).free(),
               "REDIST_ERR_MISMATCH" if p > 1 else "ok")


@pytest.mark.parametrize("bad", ["option", "dtype", "memory", "permutation", "layout",
                                 "overflow"])
def test_plan_check_on_one_rank(comm, bad):
    rank, p = comm.Get_rank(), comm.Get_size()
    src, dst = spread((8, 8), p), spread((8, 8), p, order="F")
    dtype, options = np.float64, {"permutation": (1, 0)}
    want = {"option": "TypeError", "dtype": "TypeError", "memory": "ValueError",
            "permutation": "ValueError", "layout": "TypeError", "overflow": "OverflowError"}[bad]
    if rank == p - 1:
        if bad == "option":
            options["no_such_option"] = 1
        elif bad == "dtype":
            dtype = np.dtype("U4")
        elif bad == "memory":
            options["memory"] = "gpu"
        elif bad == "permutation":
            options["permutation"] = (1,)
        elif bad == "layout":
            src = "a layout"
        else:
            options["threads"] = 2 ** 32 + 1
    everywhere(comm, lambda: redist.Plan(src, dst, dtype, comm, **options).free(), want)
    redist.Plan(spread((8, 8), p), spread((8, 8), p), np.float64, comm).free()  # none waits


def test_batch_check_on_one_rank(comm):
    rank, p = comm.Get_rank(), comm.Get_size()
    pairs = [(spread((9, 2), p), spread((9, 2), p, order="F"), np.int16)]
    mine = [] if rank == p - 1 else pairs
    everywhere(comm, lambda: redist.Batch(mine, comm).free(), "ValueError")
    perm = {"permutation": (0,)} if rank == p - 1 else {"permutation": (0, 1)}
    everywhere(comm, lambda: redist.Batch(pairs, comm, **perm).free(), "ValueError")


def test_shared_check_on_one_rank(comm, monkeypatch):
    """A refused order on one rank: ValueError everywhere and nothing allocated anywhere."""
    rank, p = comm.Get_rank(), comm.Get_size()
    calls = []
    alloc = redist._lib.alloc
    monkeypatch.setattr(redist._lib, "alloc", lambda *a: calls.append(1) or alloc(*a))
    order = "X" if rank == p - 1 else "C"
    everywhere(comm, lambda: redist.SharedArray((3, 4), np.float64, comm, order=order).free(),
               "ValueError")
    lay = spread((8, 3), p)
    everywhere(comm, lambda: lay.empty(np.float64, comm, shared=True,
                                       **({"order": "X"} if rank == p - 1 else {})).free(),
               "TypeError")
    assert not calls
    shape = (2 ** 62, 4) if rank == p - 1 else (3, 4)
    everywhere(comm, lambda: redist.SharedArray(shape, np.float64, comm).free(), "OverflowError")
    assert not calls


def test_bmmc_check_on_one_rank(comm):
    p = comm.Get_size()
    cols = redist.bmmc.bit_reversal(4)
    mine = cols[:3] if comm.Get_rank() == p - 1 else cols
    everywhere(comm, lambda: redist.bmmc.BmmcPlan(4, 1, mine, 0, np.int64, comm).free(),
               "ValueError")


@pytest.mark.parametrize("bad", ["none", "dtype", "root", "short_root", "short_recv", "op",
                                 "algorithm"])
def test_collective_check_on_one_rank(comm, bad):
    """A refused argument on one rank (or an unchecked length): REDIST_ERR_ARG everywhere."""
    rank, p = comm.Get_rank(), comm.Get_size()
    last = rank == p - 1
    buf = np.arange(4.0)
    if bad == "none":
        everywhere(comm, lambda: redist.bcast(None if last else buf, 0, comm), "REDIST_ERR_ARG")
    elif bad == "dtype":
        mine = np.array([None] * 4) if last else buf
        everywhere(comm, lambda: redist.allreduce(mine, comm), "REDIST_ERR_ARG")
    elif bad == "root":  # 2^32 would wrap to root 0
        everywhere(comm, lambda: redist.bcast(buf, 2 ** 32, comm), "REDIST_ERR_ARG")
    elif bad == "short_root":  # the root's sendbuf one block short: the library would read past it
        send = np.arange(4.0 * p - 4) if rank == 0 else None
        everywhere(comm, lambda: redist.scatter(send, np.zeros(4), 0, comm), "REDIST_ERR_ARG")
        recv = np.zeros(4 * p - 1) if rank == 0 else None
        everywhere(comm, lambda: redist.gather(buf, recv, 0, comm), "REDIST_ERR_ARG")
    elif bad == "short_recv":
        recv = np.zeros(4 * p - 1) if last else np.zeros(4 * p)
        everywhere(comm, lambda: redist.allgather(buf, comm, recvbuf=recv), "REDIST_ERR_ARG")
        recv = np.zeros(3) if last else np.zeros(4)
        everywhere(comm, lambda: redist.allreduce(buf, comm, recvbuf=recv), "REDIST_ERR_ARG")
    elif bad == "op":
        everywhere(comm, lambda: redist.allreduce(buf, comm, op="sum" if last else MPI.SUM),
                   "REDIST_ERR_ARG")
    else:
        everywhere(comm, lambda: redist.allreduce(buf, comm, algorithm=3 if last else None),
                   "REDIST_ERR_ARG")
    assert np.array_equal(redist.allreduce(np.ones(2), comm), np.full(2, p))  # none waits


def test_inter_plan_check_on_one_rank(comm):
    """Agreed over both groups: the bad rank in the destination group, then in the source's."""
    rank, p = comm.Get_rank(), comm.Get_size()
    with two_groups(comm, 78) as (inter, is_source, src, dst):
        for bad_rank, options, want in ((p - 1, {"no_such_option": 1}, "TypeError"),
                                        (0, {"memory": "gpu"}, "ValueError")):
            mine = options if rank == bad_rank else {}
            everywhere(comm, lambda: redist.InterPlan(src, dst, np.float64, inter, is_source,
                                                      **mine).free(), want)
