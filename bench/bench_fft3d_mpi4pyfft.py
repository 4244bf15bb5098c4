"""The pencil transpose of a 3-D FFT, x-pencils -> y-pencils of N^3 complex128, by mpi4py-fft's
Pencil.transfer against redist's Python bindings on redist.Boxes, in the same run
(docs/performance.md, "3-D FFT transposes"; bench/bench_fft3d.c times the same move in C).

    REDIST_LIBRARY=build/libredist.so PYTHONPATH=python \
        mpiexec -n 4 /usr/bin/python3 bench/bench_fft3d_mpi4pyfft.py [--size N] [--reps R]

mpi4py-fft (Debian's python3-mpi4py-fft: apt-get install -y python3-mpi4py-fft) on its own
pencil subcommunicators: Subcomm(comm, [1, 0, 0]), a 1 x q1 x q2 Cartesian grid (q1 >= q2,
as MPI_Dims_create, and bench_fft3d, split P); x = Pencil(subcomms, shape, axis=0) (i0
whole, i1 over q1, i2 over q2) and y = x.pencil(1) (i1 whole, i0 over q1); x.transfer(y)
is MPI_Alltoallw with subarray types over the q1 ranks that share an i2 part. redist moves
the same elements between the same local arrays: every rank's box in both pencils, as
mpi4py-fft cut them (its block rule, its ranks), given to redist.Boxes; one redist.Plan
over the whole communicator (auto). Plans and transfers are made once; each method's result
is compared once with the values of the global index, every element; then W untimed
executes (default 2) and R repetitions (default 7), the methods in a rotating order in each
(a noisy stretch falls on both); a repetition is a barrier, the call and the slowest rank's
time. Prints medians, fastest and slowest (ms) and the ratio redist / mpi4py-fft. Exit
status 1 on a wrong element, 2 when mpi4py-fft or redist cannot be imported.
"""
import argparse
import os
import statistics
import sys
import time

try:
    import numpy as np
    from mpi4py import MPI
    from mpi4py_fft.pencil import Pencil, Subcomm
    import redist
except ImportError as e:
    if os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0")) == "0":
        print(f"bench_fft3d_mpi4pyfft: an import failed ({e}); NumPy, mpi4py and mpi4py-fft: "
              "apt-get install -y python3-mpi4py-fft, and run Debian's /usr/bin/python3; "
              "redist: PYTHONPATH=python REDIST_LIBRARY=BUILD_DIR/libredist.so",
              file=sys.stderr)
    sys.exit(2)

comm = MPI.COMM_WORLD


def values(n, start, shape):
    """The local array of the box at start with this shape: element (i0, i1, i2) of the global
    N^3 array is (i0 N + i1) N + i2 + 1j (i0 - 2 i2), as in bench_fft3d."""
    i0, i1, i2 = (np.arange(s, s + k, dtype=np.int64).reshape([-1 if d == j else 1
                                                               for d in range(3)])
                  for j, (s, k) in enumerate(zip(start, shape)))
    return ((i0 * n + i1) * n + i2) + 1j * (i0 - 2 * i2)


def boxes(shape, pencil):
    """Every rank's box of an mpi4py-fft Pencil, as redist.Boxes over comm's ranks."""
    corners = comm.allgather((pencil.substart, pencil.subshape))
    return redist.Boxes(shape, [lo for lo, _ in corners],
                        [[a + k for a, k in zip(lo, n)] for lo, n in corners])


def wrong(out, want):
    """The elements of out that differ from want, summed over the ranks."""
    return comm.allreduce(int(np.count_nonzero(out != want)))


def main():
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--size", type=int, default=256)
    args.add_argument("--reps", type=int, default=7)
    args.add_argument("--warmup", type=int, default=2)
    opt = args.parse_args()
    n, rank = opt.size, comm.Get_rank()
    shape = (n, n, n)
    subcomms = Subcomm(comm, [1, 0, 0])
    x = Pencil(subcomms, shape, axis=0)
    y = x.pencil(1)
    q1, q2 = subcomms[1].Get_size(), subcomms[2].Get_size()
    gib = 16 * n ** 3 / 2 ** 30
    if rank == 0:
        print(f"bench_fft3d_mpi4pyfft: {n}^3 complex128, x-pencils -> y-pencils on "
              f"{comm.Get_size()} ranks ({q1} x {q2}), median, fastest and slowest of "
              f"{opt.reps} repetitions after {opt.warmup} warm-up executes, each the slowest "
              f"rank's time (ms)\nmemory: an array is {gib:.2f} GiB; this run holds three "
              f"(the source, mpi4py-fft's and redist's destinations: {3 * gib:.2f} GiB) and the "
              "expected values while checking")
    t0 = time.perf_counter()
    transfer = x.transfer(y, np.complex128)
    t_transfer = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
    src, dst = boxes(shape, x), boxes(shape, y)
    t0 = time.perf_counter()
    plan = redist.Plan(src, dst, np.complex128, comm)
    t_plan = comm.allreduce(time.perf_counter() - t0, op=MPI.MAX)
    a = values(n, x.substart, x.subshape)
    theirs = np.full(y.subshape, np.nan, np.complex128)  # NaN: an element not written is wrong
    ours = np.full(plan.empty_output().shape, np.nan, np.complex128)
    methods = [("mpi4py-fft Pencil.transfer", lambda: transfer.forward(a, theirs), t_transfer,
                "Alltoallw, subarrays"),
               ("redist Boxes", lambda: plan(a, out=ours), t_plan, plan.algorithm)]
    for _, fn, _, _ in methods:
        fn()
    want = values(n, y.substart, y.subshape)
    bad = [(name, wrong(out, want)) for (name, _, _, _), out in zip(methods, (theirs, ours))]
    del want
    for _ in range(opt.warmup):
        for _, fn, _, _ in methods:
            fn()
    times = [[] for _ in methods]
    for r in range(opt.reps):
        for k in range(len(methods)):
            i = (r + k) % len(methods)
            comm.Barrier()
            t0 = time.perf_counter()
            methods[i][1]()
            times[i].append(1e3 * comm.allreduce(time.perf_counter() - t0, op=MPI.MAX))
    medians = [statistics.median(t) for t in times]
    if rank == 0:
        print(f"  {'method':28s} {'algorithm':22s} {'plan ms':>9s} {'median':>9s} "
              f"{'fastest':>9s} {'slowest':>9s}")
        for (name, _, made, alg), t, med in zip(methods, times, medians):
            print(f"  {name:28s} {alg:22s} {1e3 * made:9.1f} {med:9.2f} {min(t):9.2f} "
                  f"{max(t):9.2f}")
        print(f"  ratio: redist / mpi4py-fft {medians[1] / medians[0]:.2f}")
        for name, count in bad:
            if count:
                print(f"  {name}: WRONG: {count} elements differ from their global index's "
                      "value")
    plan.free()
    transfer.destroy()
    return 1 if any(count for _, count in bad) else 0


if __name__ == "__main__":
    sys.exit(main())
