"""Layouts beyond block-cyclic grids: Boxes (partitions, replicas as identical boxes, empty
boxes, overlapping destination boxes), REPLICATED grid dimensions on either side, partial
sums (reduce=), the pencil and slab helpers, DTensor's placements (Shard(d), Replicate,
Partial(sum)) on 1-D and 2-D meshes with every transition, and the refusals. Every element of
every destination is checked against values computed with NumPy from the global index; the
checks' outcome is gathered, so that every rank fails together."""
import itertools
import math

import numpy as np
import pytest
from conftest import everywhere, outcome, refused
from mpi4py import MPI

import redist

R = redist.REPLICATED
SEED = 20261203


# -- values and oracles ------------------------------------------------------------------------
def glob(shape, dtype):
    """The global array: each element a value from its row-major position (small integers for
    integer dtypes, quarters for floats: four holders' weighted sums and products stay
    exact)."""
    lin = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        return (lin % 97 + 1).astype(dt)
    return (lin % 251 + 0.25).astype(dt)


def local(layout, rank, g, weight=1):
    """rank's local array of layout, weight * g at each element, in the layout's order."""
    return np.array(g[np.ix_(*layout.global_index(rank))] * weight, dtype=g.dtype,
                    order=layout.order)


def add_one(a, b):
    """A user op's reduction: a + b + 1 (commutative, associative; k holders' values reduce
    to their sum + k - 1, which no predefined op gives)."""
    return a + b + 1


def reduced(src, p, g, fold):
    """The global array the destination's holders receive from src on p ranks: fold over
    each element's source holders, holder r holding (r + 1) g (fold None: g itself, the
    holders holding the same values)."""
    if fold is None:
        return g
    acc, has = np.zeros_like(g), np.zeros(g.shape, dtype=bool)
    for r in range(p):
        idx = np.ix_(*src.global_index(r))
        v = (g[idx] * (r + 1)).astype(g.dtype)
        acc[idx] = np.where(has[idx], fold(acc[idx], v), v)
        has[idx] = True
    return acc


def agree_ok(comm, ok, what):
    """Every rank's check passed (collective: all ranks fail together)."""
    bad = [r for r, o in enumerate(comm.allgather(bool(ok))) if not o]
    assert not bad, f"{what}: wrong elements on rank(s) {bad}"


def run(comm, src, dst, dtype, fold=None, what="", **options):
    """Plan(src, dst, dtype, comm, **options) executed on values from the global index
    (holder r holding (r + 1) g with reduce=), every element of the destination checked on
    every rank; the plan's algorithm."""
    rank, p = comm.Get_rank(), comm.Get_size()
    g = glob(src.shape, dtype)
    a = local(src, rank, g, rank + 1 if fold is not None else 1)
    with redist.Plan(src, dst, dtype, comm, **options) as plan:
        b = plan(a)
        algorithm = plan.algorithm
    want = reduced(src, p, g, fold)[np.ix_(*dst.global_index(rank))]
    agree_ok(comm, b.shape == want.shape and b.dtype == want.dtype and np.array_equal(b, want),
             f"{what} {options}")
    return algorithm


# -- random layouts ----------------------------------------------------------------------------
def partition(rng, shape, n):
    """n boxes that partition shape: a box split along a random dimension at a random place
    (at an edge: one part empty), until there are n."""
    boxes = [([0] * len(shape), list(shape))]
    while len(boxes) < n:
        i, k = int(rng.integers(len(boxes))), int(rng.integers(len(shape)))
        lo, hi = boxes[i]
        cut = int(rng.integers(lo[k], hi[k] + 1))
        left, right = (lo, hi[:k] + [cut] + hi[k + 1:]), (lo[:k] + [cut] + lo[k + 1:], hi)
        boxes[i] = left
        boxes.append(right)
    return boxes


def random_boxes(rng, shape, p, overlapping=False):
    """Boxes over a random number of the p ranks (the others hold nothing): a partition with
    replicas (identical boxes) and empty boxes among them, or (overlapping) boxes anywhere,
    overlapping as they fall, for destinations."""
    n = int(rng.integers(1, p + 1))
    if overlapping:
        lower = [[int(rng.integers(0, s + 1)) for s in shape] for _ in range(n)]
        upper = [[int(rng.integers(lo, s + 1)) for lo, s in zip(low, shape)] for low in lower]
        boxes = list(zip(lower, upper))
    else:
        boxes = partition(rng, shape, int(rng.integers(1, n + 1)))
        while len(boxes) < n:  # a replica of a box, or an empty box
            boxes.append(boxes[int(rng.integers(len(boxes)))] if rng.integers(2)
                         else ([0] * len(shape), [0] * len(shape)))
        boxes = [boxes[i] for i in rng.permutation(n)]
    order = "C" if rng.integers(2) else "F"
    return redist.Boxes(shape, [b[0] for b in boxes], [b[1] for b in boxes], order)


def composition(rng, n, parts):
    """n split into `parts` sizes >= 0 at random."""
    cuts = sorted(int(c) for c in rng.integers(0, n + 1, parts - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [n])]


def random_grid(rng, shape, p, replicated=0.4):
    """A block-cyclic or GEN_BLOCK layout over a random subset of the p ranks, each grid
    dimension replicated with probability `replicated`."""
    nd = len(shape)
    q = int(rng.integers(1, p + 1))
    ranks = [int(r) for r in rng.permutation(p)[:q]]
    grid = [1] * nd
    for f in range(2, q + 1):
        while q % f == 0:
            grid[int(rng.integers(nd))] *= f
            q //= f
    first = [R if rng.random() < replicated else int(rng.integers(g)) for g in grid]
    order = "C" if rng.integers(2) else "F"
    if rng.integers(2):
        blocks = [int(rng.integers(1, max(2, s // 2 + 2))) for s in shape]
        return redist.BlockCyclic(shape, blocks, grid, order, first, ranks)
    sizes = [None if f == R else composition(rng, s, g) for s, g, f in zip(shape, grid, first)]
    return redist.GenBlock(shape, sizes, grid, order, first, ranks)


def every_algorithm(comm, src, dst, dtype, names, what):
    """run() with each algorithm of names; one that does not apply must say so on every
    rank (REDIST_ERR_NOT_APPLICABLE). How many ran."""
    ran = 0
    for name in names:
        try:
            run(comm, src, dst, dtype, what=f"{what} {name}", algorithm=name)
            ran += 1
        except redist.Error as e:
            assert e.name == "REDIST_ERR_NOT_APPLICABLE", (what, name, str(e))
            assert len(set(comm.allgather(e.code))) == 1
    return ran


def random_shape(rng):
    return tuple(int(rng.integers(1, 9)) for _ in range(int(rng.integers(1, 4))))


# -- boxes ---------------------------------------------------------------------------------------
def test_box_shapes_and_indices():
    """local_shape (the library's) and global_index (the package's) of boxes: upper - lower
    from each box's lower corner; an empty box (upper <= lower along one dimension) and ranks
    past nboxes hold nothing along every dimension."""
    b = redist.Boxes((6, 5), [(0, 0), (2, 1), (4, 4), (0, 0)], [(6, 5), (4, 3), (4, 5), (6, 5)],
                     order="F")
    assert b.nboxes == 4 and b.box(1) == ((2, 1), (4, 3)) and b.box(4) is None
    assert b.coords(1) == (1, 1) and b.coords(4) is None
    want = {0: ((6, 5), range(6), range(5)), 1: ((2, 2), range(2, 4), range(1, 3)),
            2: ((0, 0), range(0), range(0)), 3: ((6, 5), range(6), range(5)),
            4: ((0, 0), range(0), range(0)), 9: ((0, 0), range(0), range(0))}
    for rank, (shape, i, j) in want.items():
        assert b.local_shape(rank) == shape, rank
        gi = b.global_index(rank)
        assert [list(x) for x in gi] == [list(i), list(j)], rank
        assert all(x.dtype == np.int64 for x in gi)
    lower = np.array([[0, 0], [3, 0]])  # an (nboxes, ndims) array
    a = redist.Boxes((6, 5), lower, lower + [[3, 5], [3, 5]])
    assert a.lower == ((0, 0), (3, 0)) and a.upper == ((3, 5), (6, 5))


def test_box_partitions(comm):
    """Random partitions with replicas and empty boxes, to and from partitions, grids (with
    replicated dimensions) and overlapping destination boxes, float64 and int32; the first
    cases with every algorithm that applies."""
    rng = np.random.default_rng(SEED)
    p = comm.Get_size()
    every = 0
    for case in range(24):
        shape = random_shape(rng)
        src = random_boxes(rng, shape, p) if case % 3 != 2 else random_grid(rng, shape, p)
        dst = (random_boxes(rng, shape, p, overlapping=case % 2 == 1) if case % 3 != 1
               else random_grid(rng, shape, p))
        dtype = np.float64 if case % 2 else np.int32
        names = redist.algorithms() if case < 4 else ["auto"]
        every += every_algorithm(comm, src, dst, dtype, names, f"case {case}")
    assert every >= 24


def test_boxes_replicas_and_overlapping_destinations(comm):
    """Named cases: every rank a replica of the whole array (source and destination),
    destinations that overlap by halves, and a source of two replica classes."""
    p, n = comm.Get_size(), 11
    whole = redist.Boxes((n, 3), [(0, 0)] * p, [(n, 3)] * p)
    halves = redist.Boxes((n, 3), [(r * n // (2 * p), 0) for r in range(p)],
                          [(min(n, r * n // (2 * p) + n // 2 + 1), 3) for r in range(p)])
    cut = (n + 1) // 2
    two = redist.Boxes((n, 3), [(0, 0) if r % 2 == 0 else (cut, 0) for r in range(max(p, 2))],
                       [(cut, 3) if r % 2 == 0 else (n, 3) for r in range(max(p, 2))])
    spread = redist.BlockCyclic((n, 3), (2, 3), (p, 1), order="F")
    for src, dst, what in [(whole, spread, "replicas -> grid"), (spread, whole, "all-gather"),
                           (spread, halves, "overlapping halves"),
                           (whole, halves, "replicas -> overlapping")]:
        run(comm, src, dst, np.float64, what=what)
    if p >= 2:  # two boxes need two ranks
        run(comm, two, whole, np.int32, what="two replica classes")
        run(comm, two, halves, np.float64, what="two replica classes -> halves")


# -- replicated grid dimensions -------------------------------------------------------------
def test_replicated_shapes_and_indices():
    """local_shape (the library's) is the whole extent along a replicated dimension and the
    package's global_index 0 .. extent - 1 there; the other dimensions as without it; coords
    the user's grid."""
    for first in [(R, 1), (0, R), (R, R)]:
        bc = redist.BlockCyclic((5, 7), (2, 2), (2, 3), first=first)
        gb = redist.GenBlock((5, 7), [[1, 4], [3, 0, 4]], (2, 3), first=first)
        plain_bc = redist.BlockCyclic((5, 7), (2, 2), (2, 3), first=(0, 1))
        plain_gb = redist.GenBlock((5, 7), [[1, 4], [3, 0, 4]], (2, 3), first=(0, 1))
        for lay, plain in [(bc, plain_bc), (gb, plain_gb)]:
            for rank in range(6):
                assert lay.coords(rank) == (rank // 3, rank % 3)
                gi, pi = lay.global_index(rank), plain.global_index(rank)
                for k in range(2):
                    if first[k] == R:
                        assert lay.local_shape(rank)[k] == (5, 7)[k]
                        assert list(gi[k]) == list(range((5, 7)[k]))
                    else:
                        assert lay.local_shape(rank)[k] == plain.local_shape(rank)[k]
                        assert list(gi[k]) == list(pi[k])
            assert lay.local_shape(6) == (0, 0) and lay.coords(6) is None
    # GEN_BLOCK's sizes are not read along a replicated dimension: None, or any list
    assert redist.GenBlock((4, 6), [None, [6]], (3, 1), first=(R, 0)).local_shape(2) == (4, 6)
    assert redist.GenBlock((4, 6), [[4], [9, 9, 9]], (1, 2), first=(0, R)).local_shape(1) == \
        (4, 6)
    assert redist.GenBlock((4, 6), [None, None], (2, 2), first=(R, R)).local_shape(3) == (4, 6)


def test_replicated_either_side(comm):
    """Random grids with replicated dimensions as source, destination or both; every
    algorithm that applies in the first cases."""
    rng = np.random.default_rng(SEED + 1)
    p = comm.Get_size()
    for case in range(18):
        shape = random_shape(rng)
        side = case % 3  # 0: source replicated, 1: destination, 2: both
        src = random_grid(rng, shape, p, replicated=0.6 if side != 1 else 0.0)
        dst = random_grid(rng, shape, p, replicated=0.6 if side != 0 else 0.0)
        names = redist.algorithms() if case < 3 else ["auto"]
        assert every_algorithm(comm, src, dst, np.complex128, names, f"case {case}") >= 1


# -- partial sums ------------------------------------------------------------------------------
def user_add_one(dtype):
    """An mpi4py user op reducing as add_one on dtype."""
    def fn(inbuf, inoutbuf, datatype):
        a = np.frombuffer(inbuf, dtype=dtype)
        b = np.frombuffer(inoutbuf, dtype=dtype)
        b[...] = add_one(a, b)
    return MPI.Op.Create(fn, commute=True)


def partial_sources(p, shape):
    """Sources with several holders per element: a replicated grid dimension, identical
    boxes, a partition into boxes (one holder: the identity), replicas on some ranks only."""
    n0, n1 = shape
    yield "replicated", redist.BlockCyclic(shape, (2, 2), (p, 1), first=(R, 0))
    yield "replicas x grid", redist.BlockCyclic(shape, (1, 3), (p, 1), order="F",
                                                first=(0, R))
    yield "identical boxes", redist.Boxes(shape, [(0, 0)] * p, [shape] * p)
    yield "partition", redist.slabs(shape, p, 1)
    # the left columns on the first half of the ranks, the right ones on the others
    left = [r < max(1, p // 2) for r in range(p)]
    cut = n1 // 2 if p > 1 else n1
    yield "two classes", redist.Boxes(shape, [(0, 0) if x else (0, cut) for x in left],
                                      [(n0, cut) if x else (n0, n1) for x in left])


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_reduce(comm, dtype):
    """reduce= by name and as an MPI.Op (predefined and a user op): holder r holds (r + 1)
    g, every destination holder receives the op over the holders, to shards, replicas and
    overlapping boxes."""
    p = comm.Get_size()
    shape = (7, 5)
    user = user_add_one(dtype)
    ops = [("sum", np.add), (MPI.SUM, np.add), ("max", np.maximum), (MPI.MIN, np.minimum),
           (user, add_one)] + ([("prod", np.multiply)] if dtype == np.float64 else [])
    dsts = [redist.BlockCyclic(shape, (2, 1), (1, p), order="F"),
            redist.BlockCyclic(shape, (3, 2), (p, 1), first=(0, R)),
            redist.Boxes(shape, [(r % 3, 0) for r in range(p)], [(7, 5 - r % 2) for r in range(p)])]
    try:
        for (name, src), dst, (op, fold) in itertools.product(partial_sources(p, shape), dsts,
                                                              ops):
            algorithm = run(comm, src, dst, dtype, fold, what=name, reduce=op)
            assert algorithm == "reduce-direct"
    finally:
        user.Free()


def test_reduce_one_shot_start_and_explain(comm):
    """redistribute(reduce=) and start/wait; explain names reduce-direct and says why the
    others do not apply."""
    rank, p = comm.Get_rank(), comm.Get_size()
    src = redist.BlockCyclic((9, 4), (2, 2), (p, 1), first=(R, 0))
    dst = redist.BlockCyclic((9, 4), (2, 2), (p, 1))
    g = glob((9, 4), np.float64)
    want = reduced(src, p, g, np.add)[np.ix_(*dst.global_index(rank))]
    b = redist.redistribute(local(src, rank, g, rank + 1), src, dst, comm, reduce="sum")
    agree_ok(comm, np.array_equal(b, want), "redistribute")
    with redist.Plan(src, dst, np.float64, comm, reduce=MPI.SUM) as plan:
        out = plan.empty_output()
        plan.start(local(src, rank, g, rank + 1), out)
        assert plan.wait() is out
    agree_ok(comm, np.array_equal(out, want), "start/wait")
    e = redist.explain(src, dst, np.float64, procs=p, reduce="sum")
    assert e["algorithm"] == "reduce-direct"
    rows = {row["name"]: row for row in e["algorithms"]}
    assert "partial" in rows["direct"]["why_not"] and not rows["reduce-direct"].get("why_not")
    assert redist.explain(src, dst, np.float64, procs=p)["algorithm"] != "reduce-direct"


def test_reduce_op_and_dtype_as_plan(comm):
    """explain refuses a predefined op on a dtype MPI does not define it on as Plan does
    (REDIST_ERR_ARG), for every dtype and op."""
    p = comm.Get_size()
    src = redist.BlockCyclic((4, 3), (2, 2), (p, 1), first=(R, 0))
    dst = redist.BlockCyclic((4, 3), (1, 3), (p, 1))
    ops = list(redist._mpi.OPS) + [MPI.MAXLOC, MPI.REPLACE]
    dtypes = [np.float64, np.float32, np.complex128, np.complex64, np.int8, np.int64,
              np.uint16, np.uint64, np.bool_, np.float16, np.longdouble, np.clongdouble]
    seen = set()
    for dtype, op in itertools.product(dtypes, ops):
        planned = outcome(lambda: redist.Plan(src, dst, dtype, comm, reduce=op).free())
        explained = outcome(lambda: redist.explain(src, dst, dtype, procs=p, reduce=op))
        assert planned == explained, (dtype, op, planned, explained)
        assert planned in ("ok", "REDIST_ERR_ARG"), (dtype, op, planned)
        seen.add(planned)
    assert seen == {"ok", "REDIST_ERR_ARG"}


# -- DTensor's placements ----------------------------------------------------------------------
S0, S1, REP, PART = ("Shard", 0), ("Shard", 1), ("Replicate",), ("Partial",)
PLACEMENTS = {"S0": S0, "S1": S1, "R": REP, "P": PART}


def shard(n, m, c):
    """The part of n elements that coordinate c of m holds: torch.chunk's (DTensor's Shard):
    chunks of ceil(n / m), the last ones short or empty."""
    size = -(-n // m)
    return min(c * size, n), min((c + 1) * size, n)


def dtensor_box(shape, mesh, placements, coords, partial_source):
    """The box of mesh position coords (lower, upper), or None: Shard(d) splits dimension d
    over its mesh dimension, nested in mesh order as DTensor nests them; Replicate and
    Partial hold it whole. In a partial source the replicas along Replicate mesh dimensions
    are one value: only coordinate 0 holds it (the others hold nothing there)."""
    lo, hi = [0] * len(shape), list(shape)
    for pl, m, c in zip(placements, mesh, coords):
        if pl[0] == "Shard":
            d = pl[1]
            a, b = shard(hi[d] - lo[d], m, c)
            lo[d], hi[d] = lo[d] + a, lo[d] + b
        elif pl == REP and partial_source and c != 0:
            return None
    return lo, hi


def mesh_positions(mesh):
    return list(itertools.product(*[range(m) for m in mesh]))


def dtensor_boxes(shape, mesh, placements, partial_source):
    """The placement as Boxes: mesh rank r (row-major) holds its box, an empty one where it
    holds nothing."""
    boxes = [dtensor_box(shape, mesh, placements, c, partial_source) or
             ([0] * len(shape), [0] * len(shape)) for c in mesh_positions(mesh)]
    return redist.Boxes(shape, [b[0] for b in boxes], [b[1] for b in boxes], order="F")


def dtensor_grid(shape, mesh, placements, partial_source):
    """The placement as a block-cyclic grid where it is one (None where it is not): Shard(d)
    is grid dimension d over its mesh dimension with blocks of ceil(n / m); each Replicate
    or Partial mesh dimension a replicated grid dimension on a dimension no mesh dimension
    shards (Replicate in a partial source: one coordinate); ranks the mesh ranks."""
    nd = len(shape)
    grid, blocks, first, owner = [1] * nd, [max(1, n) for n in shape], [0] * nd, [None] * nd
    for j, pl in enumerate(placements):
        if pl[0] == "Shard":
            d = pl[1]
            if owner[d] is not None:  # nested shards: boxes only
                return None
            owner[d], grid[d], blocks[d] = j, mesh[j], max(1, -(-shape[d] // mesh[j]))
    free = [d for d in range(nd) if owner[d] is None]
    for j, pl in enumerate(placements):
        if pl[0] != "Shard":
            if not free:
                return None
            d = free.pop(0)
            owner[d], first[d] = j, R
            grid[d] = 1 if pl == REP and partial_source else mesh[j]
    ranks = []
    for pos in itertools.product(*[range(g) for g in grid]):
        coords = [0] * len(mesh)
        for d, c in enumerate(pos):
            if owner[d] is not None:
                coords[owner[d]] = c
        ranks.append(int(np.ravel_multi_index(coords, mesh)))
    return redist.BlockCyclic(shape, blocks, grid, first=first, ranks=ranks)


def dtensor_transition(comm, shape, mesh, src_pl, dst_pl, dtype, src_kind, dst_kind):
    """src_pl -> dst_pl on mesh (its ranks the first prod(mesh) of comm), the layouts as
    boxes or grids (a grid where the placement is one), every element of the destination
    against NumPy: the source's holders' values (holder r holds (r + 1) g where a mesh
    dimension is Partial: reduce="sum") summed, the destination's boxes cut from it."""
    rank = comm.Get_rank()
    partial = PART in src_pl
    make = {"boxes": dtensor_boxes, "grid": lambda *a: dtensor_grid(*a) or dtensor_boxes(*a)}
    src = make[src_kind](shape, mesh, src_pl, partial)
    dst = make[dst_kind](shape, mesh, dst_pl, False)
    g = glob(shape, dtype)
    positions = mesh_positions(mesh)
    want_global = np.zeros_like(g)
    a = None
    for r, c in enumerate(positions):
        box = dtensor_box(shape, mesh, src_pl, c, partial)
        if box is None:
            continue
        part = tuple(slice(lo, hi) for lo, hi in zip(*box))
        w = r + 1 if partial else 1
        if partial:
            want_global[part] += (g[part] * w).astype(dtype)
        else:
            want_global[part] = g[part]
        if r == rank:
            a = np.array(g[part] * w, dtype=dtype, order=src.order)
    if a is None:
        a = np.zeros(src.local_shape(rank), dtype=dtype, order=src.order)
    box = dtensor_box(shape, mesh, dst_pl, positions[rank], False) if rank < len(positions) \
        else None
    want = (want_global[tuple(slice(lo, hi) for lo, hi in zip(*box))] if box is not None
            else np.zeros((0,) * len(shape), dtype=dtype))
    b = redist.redistribute(a, src, dst, comm, reduce="sum" if partial else None)
    if want.size == 0:  # an empty part: (0, 0) as a box, (7, 0) as a grid's shard
        return b.size == 0 and b.shape == dst.local_shape(rank)
    return b.shape == want.shape and np.array_equal(b, want)


def meshes(p):
    """1-D meshes of p ranks and of p - 1 (the last rank outside), 2-D meshes p1 x p2 both
    ways."""
    one = [(p,)] + ([(p - 1,)] if p > 1 else [])
    p1, p2 = redist.balanced_grid(p, 2)
    return one, sorted({(p1, p2), (p2, p1)})


@pytest.mark.parametrize("dims", [1, 2])
def test_dtensor_placements(comm, dims):
    """Every transition between Shard(0), Shard(1), Replicate and Partial (sources) and
    Shard(0), Shard(1), Replicate (destinations) on 1-D and 2-D meshes: Replicate -> Shard,
    Shard -> Replicate, Partial -> Shard (a reduce-scatter), Partial -> Replicate (an
    all-reduce), Shard -> Shard and every mix; boxes to grids and grids to boxes (on 2-D
    meshes one of the two for each transition, in turn); float64, and int32 on 1-D
    meshes."""
    p = comm.Get_size()
    shape = (7, 3)  # a dimension of 3: empty shards from 4 ranks on
    src_names, dst_names = ["S0", "S1", "R", "P"], ["S0", "S1", "R"]
    cases, dtypes = 0, [np.float64, np.int32] if dims == 1 else [np.float64]
    both = [("boxes", "grid"), ("grid", "boxes")]
    for mesh in meshes(p)[dims - 1]:
        for i, (src_n, dst_n) in enumerate(itertools.product(
                itertools.product(src_names, repeat=dims),
                itertools.product(dst_names, repeat=dims))):
            src_pl = tuple(PLACEMENTS[n] for n in src_n)
            dst_pl = tuple(PLACEMENTS[n] for n in dst_n)
            # 1-D meshes: both ways; 2-D (144 transitions): one way each, in turn
            ways = both if dims == 1 else [both[i % 2]]
            for dtype, kinds in itertools.product(dtypes, ways):
                ok = dtensor_transition(comm, shape, mesh, src_pl, dst_pl, dtype, *kinds)
                agree_ok(comm, ok, f"mesh {mesh}: {src_n} -> {dst_n} {kinds} "
                                   f"{np.dtype(dtype)}")
                cases += 1
    assert cases == len(meshes(p)[dims - 1]) * 4 ** dims * 3 ** dims * len(dtypes) * \
        (2 if dims == 1 else 1)


# -- pencils and slabs ------------------------------------------------------------------------
def covers_once(layout, p):
    """Every element of the array in exactly one rank's box of p."""
    count = np.zeros(layout.shape, dtype=np.int64)
    for r in range(p):
        count[np.ix_(*layout.global_index(r))] += 1
    return bool((count == 1).all())


def test_pencils_and_slabs_local():
    assert [redist.balanced_grid(p, 2) for p in (1, 2, 4, 6, 7, 8, 12, 16)] == \
        [(1, 1), (1, 2), (2, 2), (2, 3), (1, 7), (2, 4), (3, 4), (4, 4)]
    assert [redist.balanced_grid(p, 3) for p in (1, 6, 8, 24)] == \
        [(1, 1, 1), (1, 2, 3), (2, 2, 2), (2, 3, 4)]
    assert redist.balanced_grid(5, 1) == (5,)
    for p in (1, 2, 3, 4, 6, 12):
        for axis in range(3):
            x = redist.pencils((7, 5, 3), p, axis)
            assert x.nboxes == p and covers_once(x, p + 1)
            p1, p2 = redist.balanced_grid(p, 2)
            others = [d for d in range(3) if d != axis]
            for r in range(p):
                lo, hi = x.box(r)
                assert (lo[axis], hi[axis]) == (0, (7, 5, 3)[axis])
                for d, (q, c) in zip(others, [(p1, r // p2), (p2, r % p2)]):
                    part = np.array_split(np.arange((7, 5, 3)[d]), q)[c]
                    assert list(range(lo[d], hi[d])) == list(part), (p, axis, r, d)
            s = redist.slabs((7, 5, 3), p, axis)
            split = 1 if axis == 0 else 0
            assert s.nboxes == p and covers_once(s, p)
            for r in range(p):
                lo, hi = s.box(r)
                part = np.array_split(np.arange((7, 5, 3)[split]), p)[r]
                assert list(range(lo[split], hi[split])) == list(part)
                assert all((lo[d], hi[d]) == (0, (7, 5, 3)[d]) for d in range(3) if d != split)
    # a grid of fewer positions than ranks: the others hold nothing
    y = redist.pencils((6, 4, 5), 7, 1, grid=(3, 2), order="F")
    assert y.nboxes == 6 and y.local_shape(6) == (0, 0, 0) and y.order == "F"
    assert redist.pencils((6, 4, 5), 7, -1).box(0) == ((0, 0, 0), (6, 1, 5))  # a 1 x 7 grid
    assert redist.slabs((6, 4, 5), 3, 0, split=2).box(2) == ((0, 0, 4), (6, 4, 5))
    assert redist.pencils((6, 4), 2, 0).upper == ((6, 2), (6, 4))


def test_pencils_and_slabs_moves(comm):
    """x-pencils -> y-pencils -> z-pencils -> slabs -> x-pencils on comm, every element."""
    p = comm.Get_size()
    shape = (5, 4, 3)
    chain = [redist.pencils(shape, p, 0), redist.pencils(shape, p, 1, order="F"),
             redist.pencils(shape, p, 2), redist.slabs(shape, p, 2), redist.slabs(shape, p, 0),
             redist.pencils(shape, p, 0)]
    for src, dst in zip(chain, chain[1:]):
        run(comm, src, dst, np.complex64, what="pencils")


# -- refusals --------------------------------------------------------------------------------
BOX = redist.Boxes
CASES = [  # (what, call, exception, words the message must hold)
    ("lower row short", lambda: BOX((4, 4), [(0, 0), (1,)], [(4, 4), (4, 4)]), ValueError,
     ["lower[1]", "2"]),
    ("upper row long", lambda: BOX((4,), [(0,)], [(4, 1)]), ValueError, ["upper[0]"]),
    ("box counts", lambda: BOX((4,), [(0,), (2,)], [(4,)]), ValueError, ["lower", "upper"]),
    ("corner overflow", lambda: BOX((4, 4), [(0, 0)], [(4, 2 ** 63)]), OverflowError,
     ["upper[0][1]"]),
    ("shape overflow", lambda: BOX((2 ** 64,), [(0,)], [(4,)]), OverflowError, ["shape"]),
    ("corners not a sequence", lambda: BOX((4,), 0, [(4,)]), TypeError, ["lower"]),
    ("corner not integers", lambda: BOX((4,), [(0.5,)], [(4,)]), TypeError, ["lower[0][0]"]),
    ("order", lambda: BOX((4,), [(0,)], [(4,)], order="Z"), ValueError, ["order", "'C'"]),
    ("gen sizes of a grid dimension", lambda: redist.GenBlock((4, 6), [None, [6]], (2, 1)),
     TypeError, ["sizes[0]"]),
    ("pencils 1-D", lambda: redist.pencils((8,), 2, 0), ValueError, ["shape"]),
    ("pencils axis", lambda: redist.pencils((8, 4, 2), 2, 3), ValueError, ["axis"]),
    ("pencils grid", lambda: redist.pencils((8, 4, 2), 2, 0, grid=(2, 2)), ValueError,
     ["grid", "comm_size"]),
    ("pencils grid length", lambda: redist.pencils((8, 4, 2), 4, 0, grid=(4,)), ValueError,
     ["grid"]),
    ("slabs split", lambda: redist.slabs((8, 4, 2), 2, 1, split=1), ValueError, ["split"]),
    ("slabs comm_size", lambda: redist.slabs((8, 4, 2), 0, 1), ValueError, ["comm_size"]),
    ("balanced_grid k", lambda: redist.balanced_grid(4, 0), ValueError, ["k"]),
    ("balanced_grid p", lambda: redist.balanced_grid(2 ** 40, 2), OverflowError, ["p"]),
    ("explain reduce name", lambda: redist.explain(BOX((4,), [(0,)], [(4,)]),
                                                   BOX((4,), [(0,)], [(4,)]), np.float64,
                                                   reduce="average"),
     ValueError, ["reduce", "'sum'", "'bxor'"]),
    ("explain reduce type", lambda: redist.explain(BOX((4,), [(0,)], [(4,)]),
                                                   BOX((4,), [(0,)], [(4,)]), np.float64,
                                                   reduce=1), TypeError, ["reduce", "MPI.Op"]),
]


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_arguments(case):
    what, call, exc, words = CASES[case]
    refused(call, exc, words, what)


def test_box_refusals_by_the_library(comm):
    """Values in range are the library's to check: corners outside [0, extent], no box; the
    plan's refusals on every rank alike: more boxes than ranks, partly overlapping source
    boxes, a destination element no source holds, boxes that differ between ranks."""
    p, rank = comm.Get_size(), comm.Get_rank()
    whole = redist.Boxes((8, 2), [(0, 0)], [(8, 2)])
    everywhere(comm, lambda: redist.Boxes((8, 2), [(0, 0)], [(9, 2)]), "REDIST_ERR_ARG")
    everywhere(comm, lambda: redist.Boxes((8, 2), [(-1, 0)], [(8, 2)]), "REDIST_ERR_ARG")
    everywhere(comm, lambda: redist.Boxes((8, 2), [], []), "REDIST_ERR_ARG")
    more = redist.Boxes((8, 2), [(0, 0)] * (p + 1), [(8, 2)] * (p + 1))
    everywhere(comm, lambda: redist.Plan(more, whole, np.float64, comm), "REDIST_ERR_ARG")
    everywhere(comm, lambda: redist.Plan(whole, more, np.float64, comm), "REDIST_ERR_ARG")
    short = redist.Boxes((8, 2), [(0, 0)] * p, [(8, 1)] * p)  # column 1 held by none
    everywhere(comm, lambda: redist.Plan(short, whole, np.float64, comm), "REDIST_ERR_ARG")
    everywhere(comm, lambda: redist.redistribute(np.zeros((8, 1)), short, whole, comm),
               "REDIST_ERR_ARG")
    # partly overlapping source boxes (at 1 rank the one box [0, 5) leaves rows 5-7 to none)
    lower = [(0, 0)] + [(3 + r, 0) for r in range(p - 1)]
    upper = [(5, 2)] + [(8, 2)] * (p - 1)
    overlapping = redist.Boxes((8, 2), lower, upper)
    everywhere(comm, lambda: redist.Plan(overlapping, whole, np.float64, comm).free(),
               "REDIST_ERR_UNSUPPORTED" if p > 1 else "REDIST_ERR_ARG")
    # as a destination the same boxes are fine: every holder receives
    run(comm, whole, overlapping, np.float64, what="overlapping destination")
    # the last rank's boxes differ from the others' (at 1 rank two boxes are more than the
    # ranks: REDIST_ERR_ARG)
    cut = 4 if rank == p - 1 and p > 1 else 5
    differ = redist.Boxes((8, 2), [(0, 0), (cut, 0)], [(cut, 2), (8, 2)])
    pair = redist.Boxes((8, 2), [(0, 0)] * 2, [(8, 2)] * 2)
    everywhere(comm, lambda: redist.Plan(differ, pair, np.float64, comm).free(),
               "REDIST_ERR_MISMATCH" if p > 1 else "REDIST_ERR_ARG")


def test_reduce_refusals(comm):
    """reduce= refused on every rank alike: an unknown name (ValueError listing the
    accepted), not an op (TypeError), on one rank only (agreed), an op not defined on the
    dtype, device memory, another algorithm forced, ranks passing different ops."""
    p, rank = comm.Get_size(), comm.Get_rank()
    src = redist.BlockCyclic((6, 4), (2, 2), (p, 1), first=(R, 0))
    dst = redist.BlockCyclic((6, 4), (1, 2), (p, 1))

    def plan(dtype=np.float64, **opts):
        return lambda: redist.Plan(src, dst, dtype, comm, **opts).free()
    everywhere(comm, plan(reduce="average"), "ValueError")
    everywhere(comm, plan(reduce=7), "TypeError")
    last = rank == p - 1
    everywhere(comm, plan(reduce="summ" if last else "sum"), "ValueError")
    everywhere(comm, plan(reduce="band"), "REDIST_ERR_ARG")
    everywhere(comm, plan(np.float16, reduce="sum"), "REDIST_ERR_ARG")
    everywhere(comm, plan(np.complex128, reduce="max"), "REDIST_ERR_ARG")
    everywhere(comm, plan(reduce="sum", memory="cuda"), "REDIST_ERR_UNSUPPORTED")
    everywhere(comm, plan(reduce="sum", algorithm="direct-async"), "REDIST_ERR_NOT_APPLICABLE")
    everywhere(comm, plan(reduce="max" if last else MPI.SUM),
               "REDIST_ERR_MISMATCH" if p > 1 else "ok")
    everywhere(comm, plan(reduce=None), "ok")
    everywhere(comm, plan(reduce=MPI.OP_NULL), "ok")
    refused(lambda: redist.explain(src, dst, np.float64, reduce="average"), ValueError,
            [repr(name) for name in ("sum", "prod", "max", "min", "land", "lor", "lxor", "band",
                                     "bor", "bxor")])


def test_batch_of_boxes(comm):
    """A batch of a boxes pair and a replicated pair, both checked."""
    rank, p = comm.Get_rank(), comm.Get_size()
    shape = (6, 5, 4)
    pairs = [(redist.pencils(shape, p, 0), redist.pencils(shape, p, 2), np.float64),
             (redist.BlockCyclic((9, 2), (2, 1), (p, 1), first=(0, R)),
              redist.Boxes((9, 2), [(0, 0)] * p, [(9, 2)] * p), np.int32)]
    arrays = [local(s, rank, glob(s.shape, dt)) for s, _, dt in pairs]
    with redist.Batch(pairs, comm) as batch:
        out = batch(arrays)
    ok = all(np.array_equal(b, local(d, rank, glob(d.shape, dt)))
             for b, (_, d, dt) in zip(out, pairs))
    agree_ok(comm, ok, "batch")
