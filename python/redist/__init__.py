"""redist: redistribute distributed arrays (block-cyclic, GEN_BLOCK, replicated, boxes) over
MPI (mpi4py), through the redist C library: NumPy arrays without copies, the C library's
algorithms, cost model and options.

    import numpy as np, redist
    from mpi4py import MPI
    src = redist.BlockCyclic(shape=(n, n), blocks=(64, 64), grid=(2, 2), order="F")
    dst = redist.BlockCyclic(shape=(n, n), blocks=(100, 100), grid=(4, 1), order="F")
    with redist.Plan(src, dst, np.float64, MPI.COMM_WORLD) as plan:
        b = plan(a)
"""
from ._core import (REPLICATED, Batch, BlockCyclic, Boxes,  # noqa: F401
                    DeviceArray, Error, GenBlock, InterPlan, Plan, SharedArray, algorithms,
                    explain, redistribute)
from ._decomp import balanced_grid, pencils, slabs  # noqa: F401
from ._coll import (allgather, allreduce, alltoall, bcast, gather,  # noqa: F401
                    reduce, reduce_scatter, scan, scatter, shift)
from . import bmmc  # noqa: F401
from ._lib import path as library_path  # noqa: F401

__all__ = ["BlockCyclic", "GenBlock", "Boxes", "REPLICATED", "pencils", "slabs",
           "balanced_grid", "Plan", "Error", "redistribute", "explain", "algorithms",
           "DeviceArray", "SharedArray", "InterPlan", "Batch", "library_path", "bcast", "reduce",
           "allreduce", "scan", "scatter", "gather", "allgather", "reduce_scatter", "alltoall",
           "shift", "bmmc"]
