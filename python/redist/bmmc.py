"""BMMC permutations ([Cor97]; include/redist.h, "BMMC"): N = 2^n elements over P = 2^p
ranks, N/P per rank; element x (rank (x >> f) & (P-1), local offset
(x & (2^f - 1)) | ((x >> (f + p)) << f)) moves to y = A x xor complement over GF(2), where
bit i of columns[j] is A[i][j]. The matrix builders return columns (a list of n ints), and
vector_reversal also the complement."""
import ctypes

from . import _args, _lib, _mpi
from ._core import Plan, _agree_dtypes, _check


def _columns(fn, n, *args):
    """The n columns a builder writes (C checks n's range: 0 <= n <= 64)."""
    n = _args.integer(n, "n")
    cols = (ctypes.c_uint64 * 64)()
    _check(fn(*args, cols) if args else fn(n, cols))
    return [int(c) for c in cols[:n]]


def identity(n):
    return _columns(_lib.bmmc_identity, n)


def transpose(a, b):
    """The transpose of a 2^a x 2^b matrix (n = a + b bits)."""
    a, b = _args.integer(a, "a"), _args.integer(b, "b")
    return _columns(_lib.bmmc_transpose, a + b, a, b)


def bit_reversal(n):
    return _columns(_lib.bmmc_bit_reversal, n)


def gray(n):
    return _columns(_lib.bmmc_gray, n)


def gray_inverse(n):
    return _columns(_lib.bmmc_gray_inverse, n)


def shuffle(n, k):
    n = _args.integer(n, "n")
    return _columns(_lib.bmmc_shuffle, n, n, _args.integer(k, "k"))


def vector_reversal(n):
    n = _args.integer(n, "n")
    cols, comp = (ctypes.c_uint64 * 64)(), ctypes.c_uint64()
    _check(_lib.bmmc_vector_reversal(n, cols, ctypes.byref(comp)))
    return [int(c) for c in cols[:n]], int(comp.value)


class BmmcPlan(Plan):
    """A BMMC permutation plan (redist_plan_create_bmmc): n bits, f local low bits, columns
    and complement; plan(a) takes this rank's N/P elements and returns its N/P permuted
    ones. Host memory only. Its checks are agreed over comm, as every plan's."""

    def __init__(self, n, f, columns, complement, dtype, comm, **options):
        _agree_dtypes(comm, lambda: self._setup_bmmc(n, f, columns, complement, dtype, comm,
                                                     options))
        h = ctypes.c_void_p()
        _check(_lib.plan_create_bmmc(self.n, self.f, self._columns, self.complement,
                                     _mpi.handle(self._type), _mpi.handle(comm),
                                     ctypes.byref(self._opt), ctypes.byref(h)))
        self._h = h.value
        local = (1 << self.n) // comm.Get_size()
        self._src_shape = self._dst_shape = (local,)

    def _setup_bmmc(self, n, f, columns, complement, dtype, comm, options):
        """This rank's checks (local): C reads n columns."""
        self.n, self.f = _args.integer(n, "n"), _args.integer(f, "f")
        cols = _args.integers(columns, "columns", self.n, f"one per bit: n = {self.n}",
                              _args.UINT64)
        self._columns = (ctypes.c_uint64 * max(len(cols), 1))(*cols)
        self.complement = _args.integer(complement, "complement", _args.UINT64)
        self.src = self.dst = _Flat()
        self._common(dtype, comm, options, ())  # C refuses any permutation: none to count
        return self.dtype.str


class _Flat:
    """What Plan's checks read of a layout: a 1-D array's order."""
    order = "C"
