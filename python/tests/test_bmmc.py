"""BMMC permutations from Python: every element lands where y = A x xor c says."""
import numpy as np
import pytest

import redist


def where(x, n, f, p_bits):
    """(rank, local offset) of global index x (include/redist.h's rule)."""
    rank = (x >> f) & ((1 << p_bits) - 1)
    return rank, (x & ((1 << f) - 1)) | ((x >> (f + p_bits)) << f)


def apply(cols, comp, x):
    y = 0
    for j, c in enumerate(cols):
        if (x >> j) & 1:
            y ^= c
    return y ^ comp


@pytest.mark.parametrize("which", ["bit_reversal", "vector_reversal", "gray", "transpose"])
def test_bmmc(comm, which):
    p = comm.Get_size()
    if p & (p - 1):
        pytest.skip(f"BMMC needs 2^k ranks, not {p}")
    p_bits, n, f = p.bit_length() - 1, 8, 2
    cols, comp = {"bit_reversal": (redist.bmmc.bit_reversal(n), 0),
                  "vector_reversal": redist.bmmc.vector_reversal(n),
                  "gray": (redist.bmmc.gray(n), 0),
                  "transpose": (redist.bmmc.transpose(3, 5), 0)}[which]
    rank = comm.Get_rank()
    a = np.zeros((1 << n) // p, np.int64)
    for x in range(1 << n):
        r, off = where(x, n, f, p_bits)
        if r == rank:
            a[off] = x
    with redist.bmmc.BmmcPlan(n, f, cols, comp, np.int64, comm) as plan:
        b = plan(a)
    want = np.zeros_like(b)
    for x in range(1 << n):
        r, off = where(apply(cols, comp, x), n, f, p_bits)
        if r == rank:
            want[off] = x
    assert np.array_equal(b, want)
