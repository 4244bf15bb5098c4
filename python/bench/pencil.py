"""The pencil transpose of a 3-D FFT against mpi4py-fft's (Debian's python3-mpi4py-fft):
x-pencils (axes 0 and 1 split over a P0 x P1 grid, axis 2 whole) to z-pencils (axis 0 whole,
axis 2 split over P0), what mpi4py_fft.pencil's Pencil.transfer does with MPI_Alltoallw and
subarray types over the axis' subcommunicator. redist's plan moves the same elements between
the same arrays (mpi4py-fft's block rule as GEN_BLOCK layouts); the two results are compared
element by element; times are medians over repetitions (every method in each, interleaved),
the slowest rank's.

    mpiexec -n 4 python3 python/bench/pencil.py [N] [REPS] [--variants]

--variants also times redist plans with other options (the shared-memory window off, MPI's
datatypes as the transport, alltoallw): where the time of auto's plan goes.
"""
import statistics
import sys
import time

import numpy as np
from mpi4py import MPI
from mpi4py_fft.pencil import Pencil, Subcomm

import redist


def blockdist(n, size):
    """mpi4py-fft's block rule: the first n % size ranks one element more."""
    q, r = divmod(n, size)
    return [q + (1 if k < r else 0) for k in range(size)]


def timed(comm, fns, reps):
    """Medians of the slowest rank's time of each function, the functions interleaved (each
    repetition runs every one, starting at a rotating place), so that a noisy stretch of the
    machine's time falls on all of them alike."""
    out = [[] for _ in fns]
    for r in range(reps):
        for k in range(len(fns)):
            i = (r + k) % len(fns)
            comm.Barrier()
            t = time.perf_counter()
            fns[i]()
            out[i].append(comm.allreduce(time.perf_counter() - t, op=MPI.MAX))
    return [statistics.median(o) for o in out]


VARIANTS = [("shared_memory=0", {"shared_memory": 0}),
            ("transport=datatype", {"transport": "datatype"}),
            ("alltoallw", {"algorithm": "alltoallw"}),
            ("alltoallv", {"algorithm": "alltoallv"})]


def main(n=128, reps=10, variants=False):
    comm = MPI.COMM_WORLD
    shape = (n, n, n)
    subcomms = Subcomm(comm, [0, 0, 1])
    p0, p1 = subcomms[0].Get_size(), subcomms[1].Get_size()
    x = Pencil(subcomms, shape, axis=2)
    z = x.pencil(0)
    transfer = x.transfer(z, np.complex128)
    # The grid positions of every rank, as mpi4py-fft's subcommunicators number them.
    coords = comm.allgather((subcomms[0].Get_rank(), subcomms[1].Get_rank()))
    rank_at = {c: r for r, c in enumerate(coords)}
    src = redist.GenBlock(shape, [blockdist(n, p0), blockdist(n, p1), [n]], (p0, p1, 1),
                          ranks=[rank_at[(i, j)] for i in range(p0) for j in range(p1)])
    dst = redist.GenBlock(shape, [[n], blockdist(n, p1), blockdist(n, p0)], (1, p1, p0),
                          ranks=[rank_at[(k, j)] for j in range(p1) for k in range(p0)])
    rng = np.random.default_rng(comm.Get_rank())
    a = (rng.random(x.subshape) + 1j * rng.random(x.subshape)).astype(np.complex128)
    theirs = np.zeros(z.subshape, np.complex128)
    plans = [("", redist.Plan(src, dst, np.complex128, comm))]
    plans += [(name, redist.Plan(src, dst, np.complex128, comm, **options))
              for name, options in (VARIANTS if variants else [])]
    outs = [plan.empty_output() for _, plan in plans]
    transfer.forward(a, theirs)
    same = True
    for (_, plan), out in zip(plans, outs):
        plan(a, out=out)
        same = same and comm.allreduce(int(not np.array_equal(out, theirs))) == 0
    flat = np.empty_like(a)  # one copy of this rank's array: the floor of any method
    fns = [lambda: transfer.forward(a, theirs), lambda: np.copyto(flat, a)]
    fns += [lambda plan=plan, out=out: plan(a, out=out) for (_, plan), out in zip(plans, outs)]
    t_theirs, t_copy, t_ours, *t_extra = timed(comm, fns, reps)
    alg = plans[0][1].algorithm
    extra = [(f"{name} ({plan.algorithm})", t) for (name, plan), t in zip(plans[1:], t_extra)]
    for _, plan in plans:
        plan.free()
    if comm.Get_rank() == 0:
        mb = n ** 3 * 16 / 1e6
        print(f"pencil transpose {n}^3 complex128 ({mb:.0f} MB) on {comm.Get_size()} ranks "
              f"({p0} x {p1}), {reps} repetitions, medians:")
        print(f"  mpi4py-fft Pencil.transfer (Alltoallw, subarray types)  {t_theirs * 1e3:8.2f} ms")
        print(f"  redist Plan ({alg})                              {t_ours * 1e3:8.2f} ms"
              f"   ({t_theirs / t_ours:.2f}x)")
        print(f"  memcpy of each rank's array (one copy: the floor)     {t_copy * 1e3:8.2f} ms")
        for name, t in extra:
            print(f"  redist Plan, {name:40s} {t * 1e3:8.2f} ms   ({t_theirs / t:.2f}x)")
        print("  results", "identical" if same else "DIFFER")
    return same


if __name__ == "__main__":
    args = [int(v) for v in sys.argv[1:] if v != "--variants"]
    sys.exit(0 if main(*args[:2], variants="--variants" in sys.argv) else 1)
