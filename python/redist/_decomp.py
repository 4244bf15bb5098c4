"""The decompositions of FFT codes as Boxes: pencils and slabs. Local, no communication.

A dimension of extent n split into q parts is cut as numpy.array_split cuts it: the first
n mod q parts have n // q + 1 elements, the others n // q (empty where n < q). Processes are
numbered row-major over the split dimensions, in increasing order of the dimensions."""
import itertools

from . import _args
from ._core import Boxes


def _parts(n, q):
    """The q [start, stop) intervals of numpy.array_split over n elements."""
    small, extra = divmod(n, q)
    starts = [i * small + min(i, extra) for i in range(q + 1)]
    return list(zip(starts[:-1], starts[1:]))


def balanced_grid(p, k):
    """p processes as a grid of k dimensions as square as it goes, the smaller factors first
    (as the command line's pencil, slab and brick specs split P): factor i is the largest
    divisor d of what remains of p, r, with d^(k - i) <= r, the last factor the rest (12 over
    2: 3 x 4; 8 over 3: 2 x 2 x 2; 6 over 3: 1 x 2 x 3)."""
    p, k = _args.integer(p, "p"), _args.integer(k, "k")
    if p < 1 or k < 1:
        raise ValueError(f"redist: balanced_grid({p}, {k}): p and k must be >= 1")
    dims, rest = [], p
    for i in range(k - 1):
        best, d = 1, 1
        while d ** (k - i) <= rest:
            if rest % d == 0:
                best = d
            d += 1
        dims.append(best)
        rest //= best
    return tuple(dims + [rest])


def _axis(axis, ndim, what="axis"):
    a = _args.integer(axis, what)
    if not -ndim <= a < ndim:
        raise ValueError(f"redist: {what} = {a} is not a dimension of a {ndim}-D array")
    return a % ndim


def _split_boxes(shape, split, grid, order):
    """Boxes of shape: dimension split[j] cut into grid[j] parts, the others whole; position
    (c_0, c_1, ...) (row-major over grid) is rank sum c_j * prod(grid[j+1:])."""
    cuts = [_parts(shape[d], g) for d, g in zip(split, grid)]
    lower, upper = [], []
    for coords in itertools.product(*[range(g) for g in grid]):
        lo, hi = [0] * len(shape), list(shape)
        for d, cut, c in zip(split, cuts, coords):
            lo[d], hi[d] = cut[c]
        lower.append(lo)
        upper.append(hi)
    return Boxes(shape, lower, upper, order)


def _common(shape, comm_size):
    shape = _args.integers(shape, "shape", bounds=_args.INT64)
    if len(shape) < 2:
        raise ValueError(f"redist: shape {shape} has {len(shape)} dimension(s): pencils and "
                         "slabs need 2 or more")
    p = _args.integer(comm_size, "comm_size")
    if p < 1:
        raise ValueError(f"redist: comm_size = {p} must be >= 1")
    return shape, p


def pencils(shape, comm_size, axis, grid=None, order="C"):
    """Pencils along `axis`: every box holds the whole extent of dimension `axis` and the
    other dimensions are split (numpy.array_split's cut) over a process grid of
    len(shape) - 1 dimensions, one per other dimension in increasing order: `grid`, or
    comm_size processes as square as it goes (balanced_grid: for a 3-D array a near-square
    2-D grid p1 x p2, p1 <= p2). Rank r holds the box at position r of the grid (row-major);
    ranks from the grid's product up to comm_size hold nothing, and parts of a dimension
    shorter than its grid dimension are empty boxes. The usual 3-D FFT goes x-pencils
    (axis 0) -> y-pencils (axis 1) -> z-pencils (axis 2), transforming along the axis each
    holds whole."""
    shape, p = _common(shape, comm_size)
    axis = _axis(axis, len(shape))
    split = [d for d in range(len(shape)) if d != axis]
    if grid is None:
        grid = balanced_grid(p, len(split))
    else:
        grid = _args.integers(grid, "grid", len(split), f"one per dimension but axis {axis}")
        if any(g < 1 for g in grid) or _args.grid_size(grid) > p:
            raise ValueError(f"redist: grid {grid} must have entries >= 1 and at most "
                             f"comm_size = {p} positions")
    return _split_boxes(shape, split, grid, order)


def slabs(shape, comm_size, axis, split=None, order="C"):
    """Slabs that hold dimension `axis` whole: one dimension, `split` (default: the first
    dimension that is not axis), is cut over the comm_size ranks (numpy.array_split's cut:
    rank r holds part r, an empty box where the dimension is shorter than comm_size), every
    other dimension whole. A slab FFT of a 3-D array: slabs(shape, p, 1) (split along 0,
    transform along 1 and 2) -> slabs(shape, p, 0) (split along 1, transform along 0)."""
    shape, p = _common(shape, comm_size)
    axis = _axis(axis, len(shape))
    split = next(d for d in range(len(shape)) if d != axis) if split is None \
        else _axis(split, len(shape), "split")
    if split == axis:
        raise ValueError(f"redist: split = {split} is axis: a slab holds axis whole")
    return _split_boxes(shape, [split], [p], order)
