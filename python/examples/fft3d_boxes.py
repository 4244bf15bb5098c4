"""A 3-D FFT on boxes, as FFT codes describe their decompositions (heFFTe's box3d): each rank
transforms the axes it holds whole, and redist plans between boxes move the data.

- pencils: x-pencils (redist.pencils(shape, p, 0)) -> FFT along x -> y-pencils -> FFT along
  y -> z-pencils -> FFT along z; the other two dimensions split over a near-square grid.
- slabs: slabs split along x (whole along y and z) -> FFT along y and z -> slabs split along
  y -> FFT along x.

The result is then gathered onto every rank by one more plan, to boxes that are all the
whole array (identical destination boxes: every rank receives every element), and compared
with numpy.fft.fftn of the global array. Ranks whose part is empty (a dimension shorter than
its split) hold empty boxes and take part all the same.

    mpiexec -n 4 python3 fft3d_boxes.py [pencils|slabs] [N0 N1 N2]
"""
import sys

import numpy as np
from mpi4py import MPI

import redist


def global_array(shape):
    i, j, k = np.indices(shape)
    return np.sin(i + 2.0 * j) + 1j * np.cos(k - j) + 0.01 * i * k


def stages(shape, p, decomposition):
    """[(boxes, the axes transformed there), ...] in the order the FFT visits them."""
    if decomposition == "pencils":
        return [(redist.pencils(shape, p, axis), (axis,)) for axis in range(3)]
    if decomposition == "slabs":
        return [(redist.slabs(shape, p, 1), (1, 2)), (redist.slabs(shape, p, 0), (0,))]
    raise ValueError(f"decomposition {decomposition!r}: 'pencils' or 'slabs'")


def fft3d(comm, a, layouts):
    """The 3-D FFT of a (this rank's local array of layouts[0][0]), left on the last
    layout. numpy.fft may return a strided view of its work array: the plans take contiguous
    arrays (redist never copies silently), so each transform's result is made contiguous."""
    for i, (boxes, axes) in enumerate(layouts):
        if i > 0:
            a = redist.redistribute(a, layouts[i - 1][0], boxes, comm)
        if a.size:  # an empty box: nothing to transform
            a = np.ascontiguousarray(np.fft.fftn(a, axes=axes))
    return a


def main(comm, shape=(12, 10, 9), decomposition="pencils"):
    rank, p = comm.Get_rank(), comm.Get_size()
    layouts = stages(shape, p, decomposition)
    whole = global_array(shape)
    first = layouts[0][0]
    a = np.ascontiguousarray(whole[np.ix_(*first.global_index(rank))])
    c = fft3d(comm, a, layouts)
    # every rank's box the whole array: identical destination boxes, each receives all
    everyone = redist.Boxes(shape, [(0, 0, 0)] * p, [shape] * p)
    result = redist.redistribute(c, layouts[-1][0], everyone, comm, dtype=np.complex128)
    want = np.fft.fftn(whole)
    ok = result.shape == want.shape and np.allclose(result, want, rtol=1e-10,
                                                    atol=1e-9 * np.abs(want).max())
    return comm.allreduce(int(not ok)) == 0


if __name__ == "__main__":
    args = sys.argv[1:]
    kind = args.pop(0) if args and not args[0].isdigit() else "pencils"
    shape = tuple(int(s) for s in args[:3]) or (12, 10, 9)
    good = main(MPI.COMM_WORLD, shape, kind)
    if MPI.COMM_WORLD.Get_rank() == 0:
        print(f"fft3d_boxes: {kind} {shape} on {MPI.COMM_WORLD.Get_size()} ranks:",
              "matches numpy.fft.fftn" if good else "WRONG")
    sys.exit(0 if good else 1)
