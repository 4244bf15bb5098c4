"""The package's overhead per execute (the target: <= 5 us over the C call): plan(a,
out=b) on a tiny 8 x 8 re-blocking on one rank, against the same C function called through
ctypes with the addresses ready, and against a C program making the same plan and calls
(build/bench_call, next to the library, run here in the same session), 20000 executes each,
median of 5 rounds.

    REDIST_LIBRARY=build/libredist.so PYTHONPATH=python /usr/bin/python3 python/bench/overhead.py
"""
import os
import re
import statistics
import subprocess
import time

import numpy as np
from mpi4py import MPI

import redist
from redist import _lib


def per_call(fn, n):
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def main():
    comm = MPI.COMM_SELF
    src = redist.BlockCyclic((8, 8), (2, 2), (1, 1))
    dst = redist.BlockCyclic((8, 8), (4, 4), (1, 1))
    a = src.zeros(np.float64, comm)
    with redist.Plan(src, dst, np.float64, comm) as plan:
        b = plan.empty_output()
        h, pa, pb = plan._h, a.ctypes.data, b.ctypes.data
        rounds = [(per_call(lambda: plan(a, out=b), 20000),
                   per_call(lambda: _lib.execute(h, pa, pb), 20000)) for _ in range(5)]
    py = statistics.median(r[0] for r in rounds)
    c = statistics.median(r[1] for r in rounds)
    print(f"plan(a, out=b) {py * 1e6:.2f} us; the C call through ctypes {c * 1e6:.2f} us; "
          f"overhead {(py - c) * 1e6:.2f} us per execute")
    native = os.path.join(os.path.dirname(redist.library_path), "bench_call")
    # a program of its own (not a rank of this job), one rank
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    out = subprocess.run([native], capture_output=True, text=True, env=env, check=True).stdout
    us = float(re.search(r"([0-9.]+) us per execute", out).group(1))
    print(f"the same execute from a C program: {us:.2f} us; plan(a, out=b) over it: "
          f"{py * 1e6 - us:.2f} us per execute")


if __name__ == "__main__":
    main()
