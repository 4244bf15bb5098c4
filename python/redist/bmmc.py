"""BMMC permutations ([Cor97]; include/redist.h, "BMMC"): N = 2^n elements over P = 2^p
ranks, N/P per rank; element x (rank (x >> f) & (P-1), local offset
(x & (2^f - 1)) | ((x >> (f + p)) << f)) moves to y = A x xor complement over GF(2), where
bit i of columns[j] is A[i][j]. The matrix builders return columns (a list of n ints), and
vector_reversal also the complement."""
import ctypes

import numpy as np

from . import _lib, _mpi
from ._core import Plan, _check


def _columns(fn, n, *args):
    cols = (ctypes.c_uint64 * 64)()
    _check(fn(*args, cols) if args else fn(n, cols))
    return [int(c) for c in cols[:n]]


def identity(n):
    return _columns(_lib.bmmc_identity, n)


def transpose(a, b):
    """The transpose of a 2^a x 2^b matrix (n = a + b bits)."""
    return _columns(_lib.bmmc_transpose, a + b, a, b)


def bit_reversal(n):
    return _columns(_lib.bmmc_bit_reversal, n)


def gray(n):
    return _columns(_lib.bmmc_gray, n)


def gray_inverse(n):
    return _columns(_lib.bmmc_gray_inverse, n)


def shuffle(n, k):
    return _columns(_lib.bmmc_shuffle, n, n, k)


def vector_reversal(n):
    cols, comp = (ctypes.c_uint64 * 64)(), ctypes.c_uint64()
    _check(_lib.bmmc_vector_reversal(n, cols, ctypes.byref(comp)))
    return [int(c) for c in cols[:n]], int(comp.value)


class BmmcPlan(Plan):
    """A BMMC permutation plan (redist_plan_create_bmmc): n bits, f local low bits, columns
    and complement; plan(a) takes this rank's N/P elements and returns its N/P permuted
    ones. Host memory only."""

    def __init__(self, n, f, columns, complement, dtype, comm, **options):
        self._setup(None, None, dtype, comm, options)
        cols = (ctypes.c_uint64 * max(len(columns), 1))(*[int(c) for c in columns])
        if len(columns) != n:
            raise ValueError(f"redist: {len(columns)} columns for n = {n}")
        h = ctypes.c_void_p()
        _check(_lib.plan_create_bmmc(int(n), int(f), cols, int(complement),
                                     _mpi.handle(self._type), _mpi.handle(comm),
                                     ctypes.byref(self._opt), ctypes.byref(h)))
        self._h = h.value
        local = (1 << n) // comm.Get_size()
        self._src_shape = self._dst_shape = (local,)
        self.src = self.dst = _Flat()


class _Flat:
    """What Plan's checks read of a layout: a 1-D array's order."""
    order = "C"
