#!/usr/bin/env python3
"""Writes the named seeds of the fuzz corpus (tests/fuzz/corpus/<target>/seed-*).

fuzz_spec's inputs are SPEC texts (the examples of docs/tool.md and variations, good and
bad). fuzz_layout's and fuzz_pattern's are byte strings read by fuzz.h's reader; the encoders
below follow their decoders (decode_layout and the window loop of fuzz_layout.c, decode_side
and LLVMFuzzerTestOneInput of fuzz_pattern.c), so each seed is a meaningful case: the papers'
pairs, windows with padding, irregular blocks, axis permutations, huge extents. A seed that
no longer decodes as its name says is still a valid input: the fuzzer starts from it either
way. The regression-* inputs are cases the fuzzers found failing, one per bug fixed (named
after it, encoded the same way). Run from anywhere: python3 tests/fuzz/seeds.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- fuzz.h's reader, inverted --------------------------------------------------------------

BOUNDARIES = [0, 1, 2, 3, -1, -2, 1 << 16, 1 << 20, (1 << 31) - 1, 1 << 31, (1 << 32) + 1,
              1 << 40, (1 << 61) + 1, (1 << 62) - 1, 1 << 62, (1 << 62) + 1, (1 << 63) - 2,
              (1 << 63) - 1, -(1 << 63), -(1 << 63) + 1]


def u8(v):
    return bytes([v & 0xFF])


def le(v, n):
    return (v & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def rng(v, lo, hi):
    """fz_range(lo, hi) returning v."""
    span = hi - lo + 1
    if span <= 256:
        return u8(v - lo)
    if span <= 65536:
        return le(v - lo, 2)
    return le(v - lo, 8)


def value(v, small):
    """fz_value(small) returning v."""
    if 0 <= v <= small:
        return u8(0) + rng(v, 0, small)
    if 0 <= v <= 65535:
        return u8(10) + rng(v, 0, 65535)
    if v in BOUNDARIES:
        return u8(12) + u8(BOUNDARIES.index(v))
    return u8(15) + le(v, 8)


def grid(g, small):
    """fz_grid(small) returning g."""
    if 1 <= g <= small:
        return u8(0) + u8(g - 1)
    return u8(15) + le(g, 4)


def permutation(perm):
    """fz_permutation giving perm (Fisher-Yates from the last position down)."""
    n = len(perm)
    cur = list(range(n))
    out = b""
    for i in range(n - 1, 0, -1):
        j = cur.index(perm[i])
        out += u8(j)
        cur[i], cur[j] = cur[j], cur[i]
    assert cur == list(perm), (cur, perm)
    return out


# ---- fuzz_layout ------------------------------------------------------------------------------

def layout(extent, block, grid_, first=None, order=0, ranks=None, sizes=None, windows=(),
           block_null=False):
    """decode_layout's input, then the windows: (offset or None, count or None, ld or None)."""
    d = len(extent)
    out = u8(0)                           # not HPF
    out += u8(d - 1)                      # ndims
    out += u8(0 if order == 0 else 15)    # order
    for k in range(d):
        out += value(extent[k], 40)
        b = block[k] if block is not None else 1
        out += u8(1) + u8(b - 1) if 1 <= b <= 16 else u8(0) + value(b, 64)
        out += grid(grid_[k], 5)
        f = first[k] if first else 0
        out += u8(240 if f == -1 else f)  # 232..249: REDIST_REPLICATED
    out += u8(0 if first is None else 1)  # first NULL?
    for k in range(d):
        if 1 <= grid_[k] <= 64:
            if sizes and sizes[k] is not None:
                s = sizes[k]
                cuts, total = [], 0
                for x in s[:-1]:
                    total += x
                    cuts.append(total)
                if extent[k] <= 255:
                    out += u8(0) + u8(1) + b"".join(u8(c) for c in cuts)
                else:
                    out += u8(0) + u8(4) + b"".join(le(c, 8) for c in cuts)
            else:
                out += u8(1)
    if sizes and all(s is not None for s in sizes):
        out += u8(1 if block_null else 0)
    np_ = 1
    for g in grid_:
        np_ *= g
    if ranks is None:
        out += u8(0)
    else:                                 # a shuffle of base, base + 1, ...
        base = min(ranks)
        out += u8(4) + u8(base)
        cur = list(range(base, base + np_))
        for i in range(np_ - 1, 0, -1):
            j = cur.index(ranks[i])
            out += le(j, 2)
            cur[i], cur[j] = cur[j], cur[i]
        assert cur == list(ranks)
    out += u8(0) * 2 * d                  # check_layout's sample seeds
    out += u8(len(windows))
    for off, cnt, ld in windows:
        out += u8((1 if off else 0) | (2 if cnt else 0) | (4 if ld else 0))
        for k in range(d):
            if off:
                out += u8(0) + u8(off[k])  # fz_range(0, min(n, 40))
            if cnt:
                out += u8(1) + u8(cnt[k])
        if ld:
            for k in range(d):             # mode 6: fz_value(64)
                out += u8(6) + value(ld[k], 64)
        out += u8(0) * 2 * d
    return out


def hpf(kind, n, m, P):
    return u8(7) + u8(kind) + value(n, 50) + (u8(1) + u8(m) if m <= 12 else u8(0) + value(m, 64)) \
        + grid(P, 6) + u8(0) * 2


# ---- fuzz_pattern -----------------------------------------------------------------------------

def side(nranks, grid_, ranks, kinds, first=None, order=0, window=None, ld=None, big=False):
    """decode_side's input. kinds[k]: ('cyclic', b <= 8), ('interval', 0 or 1), ('block', b),
    ('gen', cuts); window: None, or (offset, slack) per dimension; ld: None, ('all', extra per
    dimension) or ('rank', {rank: extra per dimension})."""
    d = len(grid_)
    out = u8(order)
    for k in range(d):
        out += u8(grid_[k] - 1) + u8(first[k] if first else 0)
    full = list(ranks) + [r for r in range(nranks) if r not in ranks]
    out += permutation(full)
    for k in range(d):
        kind = kinds[k]
        if kind[0] == "gen":  # cut points: 8 bytes each where the extent is above 255
            wide = len(kind) > 2 and kind[2]
            out += u8(0) + b"".join(le(c, 8) if wide else u8(c) for c in kind[1])
        elif kind[0] == "cyclic":
            out += u8(1) + u8(kind[1] - 1)
        elif kind[0] == "interval":
            out += u8(6) + u8(kind[1])
        else:
            out += u8(7) + value(kind[1], 64)
    if window is None:
        out += u8(0)
    else:
        out += u8(2)
        for off, slack in window:  # big cases: fz_value(6) each
            out += value(off, 6) + value(slack, 6) if big else u8(off) + u8(slack)
        def extra(e):  # ld_extra: -1, code % 3, or code 14: fz_value(64)
            return u8({-1: 0, 0: 6, 1: 4, 2: 5}[e]) if e <= 2 else u8(14) + value(e, 64)
        if ld is None:
            out += u8(0)
        elif ld[0] == "all":
            out += u8(1) + b"".join(extra(e) for e in ld[1])
        else:  # every rank of the layout, in increasing order
            out += u8(2)
            for r in sorted(ld[1]):
                out += b"".join(extra(e) for e in ld[1][r])
    return out


def pattern(nranks, shape, src, dst, perm=None, es=8, mode=0, big=False):
    d = len(shape)
    out = u8(nranks - 1) + u8(d - 1) + u8(0 if big else 1)
    out += u8({8: 0, 4: 1, 12: 2, 16: 3, 24: 4, 1: 6, 2: 7}[es]) + u8(mode)
    for n in shape:
        out += value(n, 40) if big else u8(n)
    out += u8(0) if perm is None else u8(1) + permutation(perm)
    return out + src + dst


# ---- the seeds --------------------------------------------------------------------------------

SPECS = {
    "cyclic4-8procs": "n=1000000,block=4,procs=8",
    "2d-col": "n=4000x4000,block=64x64,grid=2x2,order=col",
    "pow-ranks": "n=2^20,block=16,ranks=4-7",
    "first-ranks": "n=1000x1000,block=10x20,grid=2x3,first=1x2,ranks=5:4:3:2:1:0",
    "lbp96-cyclic2": "n=48,block=2,procs=4",
    "lbp96-cyclic6": "n=48,block=6,procs=4",
    "gen-petsc": "n=10,block=3+3+2+2",
    "gen-mixed": "n=30x8,block=10+0+15+5x4,grid=4x1",
    # a split over 64 ranks: 319 characters in one dimension (once past a 255-byte buffer)
    "gen-64-ranks": "n=%d,block=%s" % (sum(1000 + 37 * i for i in range(64)),
                                        "+".join(str(1000 + 37 * i) for i in range(64))),
    "pencils": "n=40x60x40,block=10x60x40,grid=4x1x1",
    "pencils-to": "n=40x40x60,block=40x40x15,grid=1x1x4",
    "explain-big": "n=2^30,block=4,procs=4096",
    "tables": "n=54,block=1,procs=9",
    "suffixes": "n=3kx2M,block=1Gx7,grid=1x2",
    "extent-zero": "n=0x5,block=1,procs=3",
    "max-extent": "n=2^62,block=2^62,procs=2",
    "block-int64-max": "n=100,block=9223372036854775807,procs=3",
    "ranks-down": "n=12,block=2,ranks=7-4:0-1",
    "N-alias": "N=10,block=1,procs=2,order=F",
    "order-words": "n=9x9,block=3,grid=3x3,order=column-major",
    "eight-dims": "n=2x2x2x2x2x2x2x2,grid=2x1x1x1x1x1x1x2",
    "bad-nine-dims": "n=2x2x2x2x2x2x2x2x2",
    "bad-too-large": "n=2^62x2,block=1,procs=1",
    "bad-overflow-count": "n=99999999999999999999",
    "bad-pow-overflow": "n=3^40",
    "bad-block-zero": "n=10,block=0,procs=2",
    "bad-grid-procs": "n=10x10,grid=2x2,procs=3",
    "bad-first": "n=10,first=4,procs=4",
    "bad-rank-twice": "n=10,ranks=0:1:0",
    "bad-ranks-count": "n=10,grid=3,ranks=0-1",
    "bad-gen-sum": "n=10,block=3+3+3+3",
    "bad-gen-count": "n=10,block=5+5,procs=3",
    "bad-gen-empty": "n=10,block=5++5",
    "bad-key": "n=10,foo=1",
    "bad-twice": "n=10,n=11",
    "bad-stray-comma": "n=10,,procs=2",
    "bad-no-procs": "n=1000",
    "bad-empty-value": "n=10,block=",
    "bad-order": "n=10,order=diagonal",
    "replicated": "n=64x64,grid=2x2,first=0x-1",
    "replicated-words": "n=10x12x8,block=3,grid=2x1x2,first=rx1xrep",
    "pencil": "n=64x64x64,pencil=0,procs=4",
    "slab": "n=64x64x64,slab=2,procs=6,order=col",
    "brick": "n=64x64x64,brick,procs=12",
    "brick-ranks": "n=5x7,brick,ranks=3:1:0",
    # boxes=FILE: the fuzz target reads the name as the file's text, ';' a line break
    "boxes": "n=30x20,boxes=# three;0x0 15x20;15x0 30x8;  15x8 30x20  ",
    "boxes-replicas": "n=8x8,boxes=0x0 8x4;0x0 8x4;0x4 8x8;0x4 8x8,ranks=4-7",
    "bad-first-replicated-gen": "n=10x10,block=5+5x2,grid=2x2,first=-1x0",
    "bad-pencil-axis": "n=8x8,pencil=2,procs=2",
    "bad-pencil-1d": "n=8,pencil=0,procs=2",
    "bad-brick-value": "n=8,brick=2",
    "bad-box-shapes": "n=8x8,pencil=0,slab=1",
    "bad-box-block": "n=8x8,pencil=0,block=2",
    "bad-box-beyond": "n=8x8,boxes=0x0 9x8",
    "bad-box-reversed": "n=8x8,boxes=4x0 2x8",
    "bad-box-corner": "n=8x8,boxes=0x0x0 8x8x1",
    "bad-box-empty-file": "n=8x8,boxes=#;;",
}


def layout_seeds():
    S = {}
    S["1d-cyclic2-4"] = layout([48], [2], [4])
    S["1d-block-ranks"] = layout([23], [6], [4], first=[1], ranks=[3, 1, 0, 2])
    S["2d-col-2x2"] = layout([40, 30], [4, 5], [2, 2], order=1)
    S["3d-row"] = layout([7, 8, 9], [2, 3, 4], [2, 1, 3], first=[1, 0, 2])
    S["4d"] = layout([3, 4, 5, 2], [1, 2, 2, 1], [1, 2, 2, 1], order=1)
    S["empty-dims"] = layout([0, 10], [3, 3], [2, 2])
    S["gen-petsc"] = layout([10], None, [4], sizes=[[3, 3, 2, 2]], block_null=True)
    S["gen-mixed-2d"] = layout([30, 8], [1, 4], [4, 2], sizes=[[10, 0, 15, 5], None])
    S["gen-empty-blocks"] = layout([9], None, [5], first=[2], sizes=[[0, 4, 0, 5, 0]])
    S["window"] = layout([40, 40], [4, 4], [2, 2], windows=[([5, 7], [20, 11], None)])
    S["window-ld-col"] = layout([30, 20], [4, 3], [2, 2], order=1,
                                windows=[([3, 1], [20, 15], [40, 0])])
    S["window-of-window"] = layout([40], [3], [3], windows=[([5], [30], None), ([4], [20], None)])
    S["window-of-gen"] = layout([10], None, [2], sizes=[[4, 6]], windows=[([1], [5], None)])
    S["huge-extent"] = layout([1 << 62], [3], [4])
    S["huge-block"] = layout([1 << 40], [(1 << 63) - 1], [2])
    S["huge-2d"] = layout([1 << 31, 1 << 31], [1 << 20, 7], [3, 2])
    S["bad-too-many-elements"] = layout([1 << 62, 2], [1, 1], [1, 1])
    S["bad-grid-int-max"] = layout([10, 10], [1, 1], [65536, 65536])
    S["bad-block-zero"] = layout([10], [0], [2])
    S["bad-gen-sum"] = layout([10], None, [3], sizes=[[3, 3, 3]], block_null=True)
    # window.c, redist__storage_strides: the slowest dimension's ld (ignored) was multiplied in.
    S["regression-ld-of-slowest-dimension"] = layout([4, 3], [1, 1], [1, 1],
                                                     windows=[(None, None, [(1 << 62) + 1, 0])])
    # The model knew no replicated dimension (first = -1 was refused): found by CI's fuzz stage.
    S["regression-replicated-dimension"] = bytes.fromhex("010007250101003efffffffffffffe040000")
    S["replicated-2d"] = layout([10, 6], [3, 2], [2, 3], first=[-1, 1],
                                windows=[([2, 1], [5, 4], None)])
    S["replicated-all"] = layout([5, 4], None, [2, 2], first=[-1, -1], ranks=[7, 5, 6, 4])
    S["replicated-gen"] = layout([9, 7], [1, 2], [2, 3], first=[-1, 0], sizes=[[4, 5], None])
    S["hpf-block"] = hpf(0, 50, 0, 6)
    S["hpf-block-m"] = hpf(0, 50, 9, 6)
    S["hpf-cyclic"] = hpf(1, 37, 1, 5)
    S["hpf-cyclic-m"] = hpf(2, 50, 4, 3)
    S["hpf-huge"] = hpf(2, (1 << 62) + 1, (1 << 61) + 1, 2)
    S["hpf-bad-block"] = hpf(0, 50, 3, 6)
    return S


def pattern_seeds():
    S = {}
    cyc = lambda b: ("cyclic", b)
    S["lbp96-cyclic2-cyclic6"] = pattern(
        4, [48], side(4, [4], [0, 1, 2, 3], [cyc(2)]),
        side(4, [4], [0, 1, 2, 3], [("block", 6)]))
    S["lbp96-tables-cyclic1-block6"] = pattern(
        9, [54], side(9, [4], [0, 1, 2, 3], [cyc(1)]), side(9, [4], [0, 1, 2, 3], [("block", 6)]))
    S["block-to-cyclic-sections"] = pattern(
        5, [31], side(5, [4], [0, 1, 2, 3], [("interval", 0)], first=[1]),
        side(5, [3], [4, 2, 0], [cyc(1)], first=[2]))
    S["2d-grids-col"] = pattern(
        4, [30, 20], side(4, [2, 2], [0, 1, 2, 3], [cyc(4), cyc(4)], order=1),
        side(4, [4, 1], [3, 2, 1, 0], [cyc(8), cyc(8)], order=1))
    S["2d-transpose"] = pattern(
        4, [24, 17], side(4, [2, 2], [0, 1, 2, 3], [cyc(3), cyc(2)]),
        side(4, [2, 2], [0, 1, 2, 3], [cyc(2), cyc(5)], order=1), perm=[1, 0], mode=1)
    S["3d-pencils-permute"] = pattern(
        4, [8, 12, 8], side(4, [4, 1, 1], [0, 1, 2, 3], [("interval", 0), cyc(8), cyc(8)]),
        side(4, [1, 1, 4], [0, 1, 2, 3], [cyc(8), cyc(8), ("interval", 0)]),
        perm=[2, 0, 1], es=16, mode=0x15)
    S["gen-petsc-to-cyclic"] = pattern(
        4, [10], side(4, [4], [0, 1, 2, 3], [("gen", [3, 6, 8])]),
        side(4, [4], [3, 2, 1, 0], [cyc(1)]))
    S["gen-to-gen"] = pattern(
        5, [21], side(5, [3], [0, 1, 2], [("gen", [0, 10, 10])]),
        side(5, [5], [4, 3, 2, 1, 0], [("gen", [2, 2, 9, 20])]))
    S["window-phase"] = pattern(
        3, [25], side(3, [3], [0, 1, 2], [cyc(4)], window=[(3, 2)]),
        side(3, [2], [2, 0], [cyc(3)], window=[(5, 0)]))
    S["window-ld-per-rank"] = pattern(
        4, [13, 11], side(4, [2, 2], [0, 1, 2, 3], [cyc(3), cyc(2)], window=[(2, 1), (1, 3)],
                          ld=("rank", {0: [1, 2], 1: [0, -1], 2: [2, 2], 3: [-1, 1]})),
        side(4, [2, 1], [1, 3], [cyc(4), cyc(5)], order=1, window=[(0, 2), (4, 0)],
             ld=("all", [2, 0])),
        perm=[1, 0], es=12, mode=0x27)
    # pattern.c, walk_segments: a window's phase against irregular blocks took the periodic
    # pattern, which cut the irregular side as cyclic(largest block).
    S["regression-window-phase-vs-gen-block"] = pattern(
        4, [12], side(4, [1], [2], [cyc(4)], window=[(1, 3)]),
        side(4, [3], [1, 2, 3], [("gen", [0, 0])]))
    # pattern.c, build_msg: the peer's strides guessed with this rank's ld passed 2^63 (here
    # rank 0 holds nothing, so any ld of its is valid), and copy.c multiplied them by the
    # element size although the buffer side never uses them.
    S["regression-peer-strides-from-own-ld"] = pattern(
        2, [1, 33],
        side(2, [2, 1], [1, 0], [cyc(1), cyc(2)], window=[(0, 0), (0, 0)],
             ld=("rank", {0: [-1, 1 << 61], 1: [-1, -1]})),
        side(2, [2, 1], [1, 0], [("gen", [1]), cyc(6)], first=[1, 0], order=1),
        es=16, mode=0x29)
    # Both ends must cut a period into the same segments (a message lists each segment's
    # replicas in turn): here the destination has one coordinate, and the source a phase.
    S["same-cuts-one-coordinate"] = pattern(
        8, [19], side(8, [4], [2, 5, 3, 4], [cyc(4)], window=[(2, 0)]),
        side(8, [1], [3], [cyc(2)], window=[(0, 0)]))
    S["cursor-chunks"] = pattern(
        3, [40], side(3, [3], [0, 1, 2], [cyc(2)]), side(3, [2], [1, 2], [cyc(7)]),
        es=24, mode=0x2A)
    S["ranks-outside"] = pattern(
        8, [19], side(8, [2], [6, 1], [cyc(3)]), side(8, [3], [0, 7, 4], [cyc(2)]))
    S["huge-1d"] = pattern(
        4, [1 << 40], side(4, [4], [0, 1, 2, 3], [cyc(3)]),
        side(4, [3], [0, 1, 2], [cyc(7)]), big=True)
    S["huge-interval"] = pattern(
        4, [(1 << 62) - 1], side(4, [4], [0, 1, 2, 3], [("interval", 0)]),
        side(4, [3], [3, 2, 1], [cyc(1)]), big=True)
    # pattern.c, segments_bound: an irregular block past the blocks of the largest size was
    # not counted, so a pattern of 2^39 / 3 segments was walked instead of refused.
    # Rank 0 (receiving only) holds the last irregular block, 2^39 - 1 elements.
    S["regression-gen-block-bound"] = pattern(
        3, [1 << 40], side(3, [1], [1], [cyc(3)], window=[(1, 0)], big=True),
        side(3, [3], [1, 2, 0], [("gen", [1, 1 + (1 << 39)], True)]), big=True)
    S["gen-block-bound-refused"] = pattern(
        3, [1 << 40], side(3, [2], [1, 2], [cyc(3)], window=[(1, 0)], big=True),
        side(3, [3], [1, 2, 0], [("gen", [1, 1 + (1 << 39)], True)]), big=True)
    # The same guess inside redist__storage_strides: rank 0's ld 2^61 along dimension 2 times
    # rank 1's 2^20 elements along dimension 1.
    S["regression-peer-strides-past-2p63"] = pattern(
        2, [2, (1 << 20) + 1, 2],
        side(2, [1, 2, 1], [1, 0], [cyc(8), ("block", 1 << 20), cyc(1)],
             window=[(0, 0)] * 3, ld=("rank", {0: [-1, -1, (1 << 61) - 2], 1: [-1, -1, -1]}),
             big=True),
        side(2, [1, 1, 1], [0], [cyc(8), cyc(8), cyc(8)]), big=True)
    # transpose.c, redist__tiles_create: 4 * (nf + ni) passed 2^63 for 2 x 2^61 chars.
    S["regression-tiles-of-2-by-2p61-chars"] = pattern(
        1, [2, 1 << 61], side(1, [1, 1], [0], [cyc(1), cyc(8)]),
        side(1, [1, 1], [0], [cyc(8), cyc(1)], order=1), es=1, big=True, mode=1)
    S["huge-permute-3d"] = pattern(
        6, [1 << 20, 3, 1 << 30], side(6, [2, 1, 3], [0, 1, 2, 3, 4, 5], [cyc(5), cyc(1), cyc(7)]),
        side(6, [3, 2, 1], [5, 4, 3, 2, 1, 0], [cyc(2), ("interval", 0), cyc(3)], order=1),
        perm=[2, 0, 1], big=True, es=2, mode=1)
    return S


def write(target, seeds):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):           # the named inputs are rewritten
        if name.startswith("seed-") or name.startswith("regression-"):
            os.remove(os.path.join(d, name))
    for name, data in seeds.items():
        if not name.startswith("regression-"):
            name = "seed-" + name
        with open(os.path.join(d, name), "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)


if __name__ == "__main__":
    write("spec", SPECS)
    write("layout", layout_seeds())
    write("pattern", pattern_seeds())
