"""A 3-D FFT by pencils: each rank transforms the axis it holds whole, and two redist plans
turn the pencils between the transforms (x-pencils -> y-pencils -> z-pencils). Checked
against numpy.fft.fftn of the whole array, which every rank can make here (small n).

    mpiexec -n 4 python3 fft_pencils.py [N0 N1 N2]
"""
import sys

import numpy as np
from mpi4py import MPI

import redist


def grid2(p):
    """p = p1 x p2, as square as it goes."""
    p1 = max(d for d in range(1, int(p ** 0.5) + 1) if p % d == 0)
    return p1, p // p1


def pencils(shape, whole, p1, p2):
    """The block distribution that keeps axis `whole` on every rank and splits the other two
    over the p1 x p2 grid."""
    grid = [p1, p2]
    grid.insert(whole, 1)
    blocks = [-(-n // g) for n, g in zip(shape, grid)]  # ceil: one block per coordinate
    return redist.BlockCyclic(shape, blocks, grid)


def global_array(shape):
    i, j, k = np.indices(shape)
    return np.sin(i + 2.0 * j) + 1j * np.cos(k - j) + 0.01 * i * k


def main(comm, shape=(12, 10, 9)):
    rank = comm.Get_rank()
    p1, p2 = grid2(comm.Get_size())
    x, y, z = (pencils(shape, axis, p1, p2) for axis in range(3))
    whole = global_array(shape)
    a = np.ascontiguousarray(whole[np.ix_(*x.global_index(rank))])
    # numpy.fft may return a strided view of its work array: the plans take contiguous ones
    # (redist never copies silently), so each transform's result is made contiguous
    fft = lambda v, axis: np.ascontiguousarray(np.fft.fft(v, axis=axis))  # noqa: E731
    a = fft(a, 0)
    with redist.Plan(x, y, np.complex128, comm) as x_to_y, \
            redist.Plan(y, z, np.complex128, comm) as y_to_z:
        b = fft(x_to_y(a), 1)
        c = fft(y_to_z(b), 2)
    want = np.fft.fftn(whole)[np.ix_(*z.global_index(rank))]
    ok = np.allclose(c, want, rtol=1e-10, atol=1e-9 * np.abs(want).max())
    return comm.allreduce(int(not ok)) == 0


if __name__ == "__main__":
    shape = tuple(int(s) for s in sys.argv[1:4]) or (12, 10, 9)
    good = main(MPI.COMM_WORLD, shape)
    if MPI.COMM_WORLD.Get_rank() == 0:
        print(f"fft_pencils: {shape} on {MPI.COMM_WORLD.Get_size()} ranks:",
              "matches numpy.fft.fftn" if good else "WRONG")
    sys.exit(0 if good else 1)
