"""ScaLAPACK-style re-blocking: a column-major matrix in 64 x 64 blocks on a 2-D process grid
to 100 x 100 blocks on the transposed grid, as pdgemr2d would, and back; every element
checked.

    mpiexec -n 4 python3 reblock.py [N]
"""
import sys

import numpy as np
from mpi4py import MPI

import redist


def main(comm, n=300):
    rank, p = comm.Get_rank(), comm.Get_size()
    rows = max(d for d in range(1, int(p ** 0.5) + 1) if p % d == 0)
    a_lay = redist.BlockCyclic((n, n), (64, 64), (rows, p // rows), order="F")
    b_lay = redist.BlockCyclic((n, n), (100, 100), (p // rows, rows), order="F")
    i, j = a_lay.global_index(rank)
    a = np.asfortranarray(i[:, None] * n + j[None, :], dtype=np.float64)
    with redist.Plan(a_lay, b_lay, np.float64, comm) as plan, \
            redist.Plan(b_lay, a_lay, np.float64, comm) as back:
        b = plan(a)
        bi, bj = b_lay.global_index(rank)
        ok = np.array_equal(b, bi[:, None] * n + bj[None, :]) and np.array_equal(back(b), a)
        if rank == 0:
            print(f"reblock: {n} x {n}, 64^2 blocks on {rows} x {p // rows} -> 100^2 on "
                  f"{p // rows} x {rows} with {plan.algorithm}")
    return comm.allreduce(int(not ok)) == 0


if __name__ == "__main__":
    good = main(MPI.COMM_WORLD, int(sys.argv[1]) if len(sys.argv) > 1 else 300)
    if MPI.COMM_WORLD.Get_rank() == 0:
        print("reblock:", "every element right" if good else "WRONG")
    sys.exit(0 if good else 1)
