"""Intercommunicator plans (two groups) and batches (several arrays, one plan), every element
checked."""
import numpy as np
import pytest
from conftest import global_values
from mpi4py import MPI
from test_plan import random_layout

import redist


def test_intercommunicator(comm):
    p = comm.Get_size()
    if p < 2:
        pytest.skip("an intercommunicator needs two groups: 2 ranks or more")
    rank = comm.Get_rank()
    k = p // 2  # source group: world ranks 0 .. k-1
    is_source = rank < k
    group = comm.Split(int(is_source), rank)
    inter = group.Create_intercomm(0, comm, k if is_source else 0, 77)
    src = redist.BlockCyclic((23, 11), (4, 3), (k, 1))
    dst = redist.BlockCyclic((23, 11), (5, 2), (1, p - k), order="F")
    with redist.InterPlan(src, dst, np.float64, inter, is_source) as plan:
        if is_source:
            assert plan(global_values(src, group.Get_rank(), np.float64)) is None
        else:
            b = plan(None)
            assert np.array_equal(b, global_values(dst, group.Get_rank(), np.float64))
    inter.Free()
    group.Free()


def test_batch(comm):
    rng = np.random.default_rng(11)
    rank = comm.Get_rank()
    pairs = []
    for dtype in (np.float64, np.int32, np.complex64):
        shape = (int(rng.integers(1, 25)), int(rng.integers(1, 9)))
        pairs.append((random_layout(rng, shape, comm.Get_size()),
                      random_layout(rng, shape, comm.Get_size()), dtype))
    with redist.Batch(pairs, comm) as plan:
        out = plan([global_values(s, rank, dt) for s, _, dt in pairs])
        for (s, d, dt), b in zip(pairs, out):
            assert np.array_equal(b, global_values(d, rank, dt))
