"""Layouts, plans and errors: the package's API over the C library (include/redist.h).

Every argument goes through _args' checks before it reaches C, and every collective entry
point agrees the outcome of its own checks over its communicator (_agree) before its first
collective call, so that a check failing on some ranks only raises on every rank."""
import ctypes
import json
import weakref

import numpy as np

from . import _args, _lib, _mpi
from ._agree import agreed
from ._errors import ERR_ARG, Error, freed, mismatch
from ._errors import check as _check
from ._shared import ORDERS as _ORDERS
from ._shared import SharedArray

_MEMORY = {"host": 0, "cuda": 1, "auto": 2}  # REDIST_MEMORY_*
_TRANSPORT = {"auto": 0, "pack": 1, "datatype": 2}  # REDIST_TRANSPORT_*
_SCALES = {np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128)}
_NULL = None
REPLICATED = -1  # REDIST_REPLICATED: first[k] of a replicated grid dimension


def _c_array(ctype, values):
    return (ctype * max(len(values), 1))(*values)


def _layout_args(shape, grid, order, first, ranks):
    """What every layout takes, checked: (shape, grid, order, first, ranks)."""
    shape = _args.integers(shape, "shape", bounds=_args.INT64)
    n = len(shape)
    grid = _args.integers(grid, "grid", n, "one per dimension")
    first = (0,) * n if first is None else _args.integers(first, "first", n, "one per dimension")
    if ranks is not None:
        ranks = _args.integers(ranks, "ranks", _args.grid_size(grid), "one per grid position")
    return shape, grid, _args.choice(order, "order", _ORDERS), first, ranks


def _layout(x, what):
    if not isinstance(x, _Layout):
        raise TypeError(f"redist: {what} must be a layout (BlockCyclic, GenBlock, Boxes), "
                        f"not {type(x).__name__}")
    return x


class _Layout:
    """What every layout has: the C handle, the shape, the order ("C" or "F")."""

    def __init__(self, handle, shape, order):
        self._h = handle
        self.shape = shape
        self.order = order
        self.ndim = len(self.shape)

    def __del__(self):
        if getattr(self, "_h", None) and _lib is not None:
            h = ctypes.c_void_p(self._h)
            _lib.layout_free(ctypes.byref(h))
            self._h = None

    @property
    def _as_parameter_(self):
        return ctypes.c_void_p(self._h)

    def local_shape(self, rank):
        """The extents of rank's local array (zeros where it holds nothing)."""
        out = (ctypes.c_int64 * self.ndim)()
        _check(_lib.layout_local_shape(self._h, _args.integer(rank, "rank"), out))
        return tuple(out)

    def local_size(self, rank):
        n = ctypes.c_int64()
        _check(_lib.layout_local_size(self._h, _args.integer(rank, "rank"), ctypes.byref(n)))
        return n.value

    def coords(self, rank):
        """rank's grid coordinates, or None if it is not in the layout."""
        out = (ctypes.c_int * self.ndim)()
        code = _lib.layout_coords(self._h, _args.integer(rank, "rank"), out)
        return tuple(out) if code == 1 else None

    def _max_rank(self):
        """The largest communicator rank the layout uses."""
        return max(self.ranks) if self.ranks else _lib.layout_nprocs(self._h) - 1

    def empty(self, dtype, comm, shared=False, **kw):
        """This rank's local array (of comm), uninitialised, stored as the layout says.
        shared=True: in memory shared with the other ranks of its node (redist_alloc,
        collective over comm), a SharedArray to free with its free() or a with block."""
        shape = self.local_shape(comm.Get_rank())
        if shared:
            return SharedArray._allocate(shape, dtype, comm, self.order, kw)
        return np.empty(shape, dtype=dtype, order=self.order, **kw)

    def zeros(self, dtype, comm):
        return np.zeros(self.local_shape(comm.Get_rank()), dtype=dtype, order=self.order)


class BlockCyclic(_Layout):
    """A block-cyclic distribution (HPF / ScaLAPACK): along dimension k, blocks of blocks[k]
    elements dealt round robin over grid[k] coordinates, global block 0 on first[k]; grid
    positions (row-major) hold ranks[...] of the plan's communicator (default 0, 1, 2, ...);
    each local array stored in `order` ("C": row-major, "F": column-major).
    first[k] = REPLICATED (-1): every process along grid dimension k holds the whole extent
    of dimension k (blocks[k] is not read there): its processes are replicas."""

    def __init__(self, shape, blocks, grid, order="C", first=None, ranks=None):
        shape, grid, code, first, ranks = _layout_args(shape, grid, order, first, ranks)
        n = len(shape)
        self.blocks = _args.integers(blocks, "blocks", n, "one per dimension", _args.INT64)
        self.grid, self.first, self.ranks = grid, first, ranks
        h = ctypes.c_void_p()
        _check(_lib.layout_create(n, _c_array(ctypes.c_int64, shape),
                                  _c_array(ctypes.c_int64, self.blocks),
                                  _c_array(ctypes.c_int, grid), _c_array(ctypes.c_int, first),
                                  None if ranks is None else _c_array(ctypes.c_int, ranks),
                                  code, ctypes.byref(h)))
        super().__init__(h.value, shape, order)

    def global_index(self, rank):
        """One 1-D int64 array per dimension: the global index of each local index of rank's
        array (empty where it holds nothing), so f(*np.ix_(*idx)) fills the local array."""
        c = self.coords(rank)
        shape = self.local_shape(rank)
        out = []
        for k in range(self.ndim):
            l = np.arange(shape[k], dtype=np.int64)
            if c is None or self.first[k] == REPLICATED:  # replicated: the whole extent
                out.append(l)
                continue
            b, p = self.blocks[k], self.grid[k]
            cc = (c[k] - self.first[k]) % p
            out.append(((l // b) * p + cc) * b + l % b)
        return tuple(out)


def _gen_sizes(sizes, grid, first):
    """GenBlock's sizes checked: one list per dimension, one size per block of its grid; a
    replicated dimension's (first[k] = REPLICATED) is not read: None there."""
    try:
        lists = list(sizes)
    except TypeError:
        raise TypeError("redist: sizes must be a list of lists of block sizes") from None
    if len(lists) != len(grid):
        raise ValueError(f"redist: sizes has {len(lists)} lists, not {len(grid)} (one per "
                         "dimension)")
    return tuple(None if f == REPLICATED else
                 _args.integers(s, f"sizes[{k}]", g if g >= 1 else None,
                                f"one per block: grid[{k}] = {g}", _args.INT64)
                 for k, (s, g, f) in enumerate(zip(lists, grid, first)))


class GenBlock(_Layout):
    """A GEN_BLOCK distribution: along dimension k, sizes[k] lists the grid[k] blocks' sizes
    (summing to shape[k]), block i on coordinate (first[k] + i) mod grid[k].
    first[k] = REPLICATED (-1): every process along grid dimension k holds the whole extent
    of dimension k; sizes[k] is not read there (None will do)."""

    def __init__(self, shape, sizes, grid, order="C", first=None, ranks=None):
        shape, grid, code, first, ranks = _layout_args(shape, grid, order, first, ranks)
        n = len(shape)
        self.sizes = _gen_sizes(sizes, grid, first)
        self.grid, self.first, self.ranks = grid, first, ranks
        self._sizes = [None if s is None else _c_array(ctypes.c_int64, s)
                       for s in self.sizes]  # C keeps no copy
        ptrs = _c_array(ctypes.POINTER(ctypes.c_int64),
                        [ctypes.cast(s, ctypes.POINTER(ctypes.c_int64)) for s in self._sizes])
        # block is read only where sizes[k] is NULL and the dimension is not replicated (never
        # here), but C wants the array where no dimension has sizes (all replicated)
        h = ctypes.c_void_p()
        _check(_lib.layout_create_gen_block(n, _c_array(ctypes.c_int64, shape),
                                            _c_array(ctypes.c_int64, (1,) * n),
                                            _c_array(ctypes.c_int, grid),
                                            _c_array(ctypes.c_int, first),
                                            None if ranks is None else
                                            _c_array(ctypes.c_int, ranks),
                                            code, ptrs, ctypes.byref(h)))
        super().__init__(h.value, shape, order)

    def global_index(self, rank):
        c = self.coords(rank)
        shape = self.local_shape(rank)
        out = []
        for k in range(self.ndim):
            l = np.arange(shape[k], dtype=np.int64)
            if c is not None and self.first[k] != REPLICATED:
                p = self.grid[k]
                i = (c[k] - self.first[k]) % p  # the block this coordinate holds
                l = l + sum(self.sizes[k][:i])
            out.append(l)
        return tuple(out)


def _corners(corners, what, ndim):
    """Boxes' lower or upper corners checked: a sequence of boxes (a list of tuples, or an
    (nboxes, ndim) array), each of ndim int64 corners; a tuple of tuples."""
    try:
        rows = list(corners)
    except TypeError:
        raise TypeError(f"redist: {what} must be a sequence of corners (one per box), not "
                        f"{type(corners).__name__}") from None
    return tuple(_args.integers(r, f"{what}[{i}]", ndim, "one per dimension", _args.INT64)
                 for i, r in enumerate(rows))


class Boxes(_Layout):
    """One box per rank (FFT codes' pencils, slabs and bricks): rank r < nboxes of the plan's
    communicator holds lower[r][k] <= i < upper[r][k] along every dimension k, stored densely
    in `order` (local shape upper[r] - lower[r]); a box with upper <= lower along some
    dimension is empty (local shape 0 along every dimension), as is every rank r >= nboxes.
    lower and upper: a sequence of nboxes corners of len(shape) integers each (or an
    (nboxes, len(shape)) array), every corner in [0, shape[k]] (the library refuses others:
    REDIST_ERR_ARG). Identical boxes are replicas (one sends, every one receives); a
    destination's boxes may overlap in any way, a source's only as identical boxes (partly
    overlapping ones: REDIST_ERR_UNSUPPORTED at plan creation); a destination element no
    source box holds is REDIST_ERR_ARG at plan creation. coords(rank) is the library's: the
    box's index (rank) along every dimension, None past nboxes."""

    def __init__(self, shape, lower, upper, order="C"):
        shape = _args.integers(shape, "shape", bounds=_args.INT64)
        code = _args.choice(order, "order", _ORDERS)
        n = len(shape)
        self.lower = _corners(lower, "lower", n)
        self.upper = _corners(upper, "upper", n)
        if len(self.lower) != len(self.upper):
            raise ValueError(f"redist: lower has {len(self.lower)} boxes, upper "
                             f"{len(self.upper)} (one corner each per box)")
        self.nboxes = _args.integer(len(self.lower), "nboxes (the boxes in lower)")
        self.ranks = None
        lo, hi = ([c for box in corners for c in box] for corners in (self.lower, self.upper))
        h = ctypes.c_void_p()
        _check(_lib.layout_create_boxes(n, _c_array(ctypes.c_int64, shape), self.nboxes,
                                        _c_array(ctypes.c_int64, lo),
                                        _c_array(ctypes.c_int64, hi), code, ctypes.byref(h)))
        super().__init__(h.value, shape, order)

    def box(self, rank):
        """(lower, upper) of rank's box, or None where rank holds none (rank >= nboxes)."""
        rank = _args.integer(rank, "rank")
        return (self.lower[rank], self.upper[rank]) if 0 <= rank < self.nboxes else None

    def global_index(self, rank):
        """One 1-D int64 array per dimension: the global index of each local index of rank's
        array (empty where it holds nothing), so f(*np.ix_(*idx)) fills the local array."""
        shape = self.local_shape(rank)
        b = self.box(rank)
        return tuple(np.arange(shape[k], dtype=np.int64) + (b[0][k] if b else 0)
                     for k in range(self.ndim))


def _dtype(dtype):
    """(NumPy dtype, MPI datatype) of the dtypes plans take; others a TypeError."""
    dt = np.dtype(dtype)
    return dt, _mpi.datatype(dt)


def _complex(value, what):
    if isinstance(value, (str, bytes)):
        raise TypeError(f"redist: {what} must be a number, not {type(value).__name__}")
    try:
        return complex(value)
    except TypeError:
        raise TypeError(f"redist: {what} must be a number, not {type(value).__name__}") from None


_INT_OPTIONS = {"check_arguments": _args.C_INT, "shared_memory": _args.C_INT,
                "hybrid_degree": _args.C_INT, "bmmc_method": _args.C_INT,
                "synchronous_receive": _args.C_INT, "conjugate": _args.C_INT,
                "threads": _args.C_INT, "max_buffer_bytes": _args.INT64}


def _options(opts, ndims=()):
    """A filled redist_options from keyword arguments named as the C fields, each checked;
    the ctypes objects it points to are kept with it. ndims: the arrays' dimensions, which
    permutation must have as many entries as (C reads that many)."""
    o = _lib.Options()
    _lib.options_init(ctypes.byref(o))
    keep = []
    for key, val in opts.items():
        if val is None:
            continue
        if key in ("algorithm", "alltoall_algorithm"):
            keep.append(_args.text(val, key))
            setattr(o, key, keep[-1])
        elif key == "permutation":
            perm = _args.integers(val, "permutation")
            for n in ndims:
                _args.integers(perm, "permutation", n, "one per dimension of the arrays")
            keep.append(_c_array(ctypes.c_int, perm))
            o.permutation = ctypes.cast(keep[-1], ctypes.POINTER(ctypes.c_int))
        elif key in ("alpha", "beta"):
            z = _complex(val, key)
            getattr(o, key)[0], getattr(o, key)[1] = z.real, z.imag
        elif key == "memory":
            o.memory = _args.name_or_int(val, "memory", _MEMORY)
        elif key == "transport":
            o.transport = _args.name_or_int(val, "transport", _TRANSPORT)
        elif key == "stream":
            o.stream = _args.integer(val, "stream", _args.UINT64)
        elif key == "reduce":
            o.reduce = _mpi.op_storage(val)
        elif key in _INT_OPTIONS:
            setattr(o, key, _args.integer(val, key, _INT_OPTIONS[key]))
        else:
            raise TypeError(f"redist: unknown option {key!r}")
    return o, keep


def _scaling_refusal(opt, dtype):
    """C's check of the scaling against the element type (plan.c's check_scaling), which
    redist_explain cannot make (it has no type): the same error."""
    scales = (opt.alpha[0], opt.alpha[1], opt.beta[0], opt.beta[1], opt.conjugate) != \
        (1.0, 0.0, 0.0, 0.0, 0)
    if not scales:
        return None
    if dtype not in _SCALES:
        return ("alpha, beta and conjugate apply to float, double and their complex types; "
                "other types only copy (alpha = 1, beta = 0)")
    if dtype.kind == "f" and (opt.alpha[1] != 0.0 or opt.beta[1] != 0.0):
        return "a real type with a complex alpha or beta (imaginary part not 0)"
    return None


def _dtype_names(d):
    """A dtype's str (or a batch's tuple of them) as the names a message shows."""
    if isinstance(d, tuple):
        return "(" + ", ".join(_dtype_names(x) for x in d) + ")"
    return np.dtype(d).name


def _agree_dtypes(comm, check):
    """check() agreed over comm (it returns this rank's dtype.str, or a batch's tuple of
    them): the one value of every rank, else REDIST_ERR_MISMATCH on every rank (C compares
    element sizes only: float32 and int32 would pass)."""
    dtypes = agreed(comm, check)
    if len(dtypes) > 1:
        raise mismatch("dtypes", [_dtype_names(d) for d in dtypes])
    return dtypes


def _sequence_refusal(seq, n):
    """Why seq is not a list of n arrays (None: it is)."""
    try:
        k = len(seq)
    except TypeError:
        return f"a {type(seq).__name__}, not a list of {n} arrays"
    return None if k == n else f"{k} arrays for a batch of {n}"


class Plan:
    """A redistribution plan (redist_plan_create): made once, executed many times. Collective
    over comm, as are free() and every execute. Options as keyword arguments named as in C
    (algorithm, permutation, alpha, beta, conjugate, max_buffer_bytes, threads, memory,
    transport, shared_memory, check_arguments, hybrid_degree, bmmc_method,
    synchronous_receive, alltoall_algorithm, stream), and reduce: partial sums, an op's name
    ("sum", "prod", "max", "min", "land", "lor", "lxor", "band", "bor", "bxor") or an
    mpi4py MPI.Op (None: none), with which every source holder of an element (each replica,
    each of identical boxes) holds a partial value and every destination holder receives
    their reduction. Free it with free() or a with block:
    freeing is collective, so garbage collection does not do it. Every method of a freed
    plan raises REDIST_ERR_STATE ("the plan was freed")."""

    _h = None

    def __init__(self, src, dst, dtype, comm, **options):
        _agree_dtypes(comm, lambda: self._setup(src, dst, dtype, comm, options))
        h = ctypes.c_void_p()
        _check(_lib.plan_create(src._h, dst._h, _mpi.handle(self._type), _mpi.handle(comm),
                                ctypes.byref(self._opt), ctypes.byref(h)))
        self._h = h.value
        rank = comm.Get_rank()
        self._src_shape = src.local_shape(rank)
        self._dst_shape = dst.local_shape(rank)

    def _setup(self, src, dst, dtype, comm, options):
        """This rank's checks of a plan's arguments (local); its dtype's str, to agree."""
        self.src, self.dst = _layout(src, "src"), _layout(dst, "dst")
        self._common(dtype, comm, options, (self.src.ndim,))
        return self.dtype.str

    def _common(self, dtype, comm, options, ndims):
        """What every kind of plan keeps: dtype, comm, options (checked)."""
        self.comm = comm
        self.dtype, self._type = _dtype(dtype)
        self._opt, self._keep = _options(options, ndims)
        self._check_arguments = self._opt.check_arguments
        self.memory = self._opt.memory
        self._active = None  # the arrays of a started execution, kept alive until it ends
        self._why = None  # why this rank refused them (reported at test or wait)

    def _live(self):
        """The C handle; a freed plan's error without reaching C."""
        if self._h is None:
            raise freed()
        return self._h

    # -- the arrays ------------------------------------------------------------------------
    def _address(self, a, shape, order, writable, dtype):
        """(address, None) to pass for array a (NULL where this rank holds nothing), or
        (None, why) where it is refused."""
        if 0 in shape:  # this rank holds nothing of the array
            return _NULL, None
        cai = getattr(a, "__cuda_array_interface__", None)
        why = (self._device_refusal(cai, shape, order, writable, dtype) if cai is not None
               else _host_refusal(a, shape, order, writable, dtype))
        if why is not None:
            return None, why
        return (cai["data"][0] if cai is not None else _data_address(a)), None

    def _device_refusal(self, cai, shape, order, writable, dtype):
        """Why a device array (__cuda_array_interface__: CuPy, Numba, ...) cannot be passed
        as is (None: it can)."""
        if self.memory == 0:
            return ("device memory (__cuda_array_interface__) and the plan's is host "
                    "memory: make the plan with memory='cuda' or 'auto'")
        dt = np.dtype(cai["typestr"])
        if dt != dtype:
            return f"dtype {dt}, the plan's is {dtype}"
        if tuple(cai["shape"]) != shape:
            return f"shape {tuple(cai['shape'])}, this rank's local shape is {shape}"
        strides = cai.get("strides")
        have = tuple(strides) if strides is not None else _strides(shape, dt.itemsize, "C")
        want = _strides(shape, dt.itemsize, order)
        if any(h != w for h, w, n in zip(have, want, shape) if n > 1):
            return _not_contiguous(order)
        if writable and cai["data"][1]:
            return "read-only"
        return None

    def _refuse(self, refused):
        """Where this rank refused arrays (refused: (name, why) each): the library's refusal
        sentinel to pass for each, so that this rank still makes the collective call and
        every rank gets REDIST_ERR_ARG, and the sentence naming each; with
        check_arguments=0 (no agreement asked for) raised here alone: the others wait."""
        why = "; ".join(f"{name}: {w}" for name, w in refused)
        if not self._check_arguments:
            raise Error(ERR_ARG, why)
        return _lib.bad_buffer(why.encode()), why

    def _pointers(self, a, b):
        """(src address, dst address, why this rank refused them or None)."""
        s, ws = self._address(a, self._src_shape, self.src.order, False, self.dtype)
        d, wd = self._address(b, self._dst_shape, self.dst.order, True, self.dtype)
        if ws is None and wd is None:
            return s, d, None
        bad, why = self._refuse([(n, w) for n, w in (("src", ws), ("dst", wd)) if w])
        return (bad if ws else s), (bad if wd else d), why

    def empty_output(self, like=None):
        """This rank's local destination array, uninitialised: in host memory, or in device
        memory like `like`'s (a CuPy array gives a CuPy array, another device array a
        redist.DeviceArray)."""
        self._live()
        if like is None or not hasattr(like, "__cuda_array_interface__"):
            return np.empty(self._dst_shape, dtype=self.dtype, order=self.dst.order)
        if type(like).__module__.split(".")[0] == "cupy":
            import cupy  # only when a CuPy array comes
            return cupy.empty(self._dst_shape, dtype=self.dtype, order=self.dst.order)
        return DeviceArray(self._dst_shape, self.dtype, self.dst.order)

    # -- executing --------------------------------------------------------------------------
    def __call__(self, a, out=None):
        """Redistributes a (this rank's local source array) into out (allocated if None) and
        returns it."""
        h = self._live()
        if out is None:
            out = self.empty_output(like=a)
        s, d, why = self._pointers(a, out)
        code = _lib.execute(h, s, d)
        if code:
            raise Error(code, why)
        return out

    execute = __call__

    def start(self, a, out):
        """Starts an execution (nonblocking): a and out must stay untouched until test()
        returns True or wait() returns. A refused array is reported by test() or wait()."""
        h = self._live()
        s, d, why = self._pointers(a, out)
        self._started(_lib.start(h, s, d), (a, out), why)

    def _started(self, code, arrays, why):
        if code:
            raise Error(code, why)
        self._active, self._why = arrays, why

    def _ended(self, code):
        """The execution is over: its arrays let go; its error raised (this rank's refusal
        in its own words)."""
        out, why = self._active[1] if self._active else None, self._why
        self._active = self._why = None
        if code:
            raise Error(code, why)
        return out

    def test(self):
        """Progresses a started execution; True once it is complete."""
        done = ctypes.c_int()
        code = _lib.test(self._live(), ctypes.byref(done))
        if code or done.value:
            self._ended(code)
        return bool(done.value)

    def wait(self):
        """Completes a started execution; returns its destination array (a list for a
        batch)."""
        return self._ended(_lib.wait(self._live()))

    # -- about the plan ---------------------------------------------------------------------
    @property
    def algorithm(self):
        return _lib.plan_algorithm(self._live()).decode()

    def stats(self):
        """redist_stats as a dict (this rank's figures, and maxima over the ranks)."""
        st = _lib.Stats()
        _check(_lib.plan_stats(self._live(), ctypes.byref(st)))
        return {name: getattr(st, name) for name, _ in _lib.Stats._fields_}

    def free(self):
        """Frees the plan (collective; an execution in flight is completed first). Calling
        it again does nothing."""
        if self._h is not None:
            h = ctypes.c_void_p(self._h)
            self._h = None  # C frees it whatever it returns
            self._active = self._why = None
            _check(_lib.plan_free(ctypes.byref(h)))

    def __enter__(self):
        self._live()
        return self

    def __exit__(self, *exc):
        self.free()
        return False


def _not_contiguous(order):
    return (f"not {'Fortran' if order == 'F' else 'C'}-contiguous (the layout's order): redist "
            "never copies an array silently")


def _host_refusal(a, shape, order, writable, dtype):
    """Why a host array cannot be passed as is (None: it can)."""
    if not isinstance(a, np.ndarray):
        return f"a {type(a).__name__}, not a NumPy array (this rank's local shape is {shape})"
    if a.dtype != dtype:
        return f"dtype {a.dtype}, the plan's is {dtype}"
    if a.shape != shape:
        return f"shape {a.shape}, this rank's local shape is {shape}"
    if not (a.flags.f_contiguous if order == "F" else a.flags.c_contiguous):
        return _not_contiguous(order)
    if writable and not a.flags.writeable:
        return "read-only"
    return None


class InterPlan(Plan):
    """A plan between two groups joined by an intercommunicator (redist_plan_create_inter):
    the source group (is_source True) holds src, whose ranks number its own group; the other
    group holds dst, numbered in its own group. Each side passes only its own array: the
    source side plan(a) (returns None), the destination side plan(None) or plan(None, out=b).
    Its checks are agreed over both groups."""

    def __init__(self, src, dst, dtype, intercomm, is_source, **options):
        _agree_dtypes(intercomm, lambda: self._setup(src, dst, dtype, intercomm, options))
        self.is_source = bool(is_source)
        h = ctypes.c_void_p()
        _check(_lib.plan_create_inter(src._h, dst._h, _mpi.handle(self._type),
                                      _mpi.handle(intercomm), int(self.is_source),
                                      ctypes.byref(self._opt), ctypes.byref(h)))
        self._h = h.value
        rank = intercomm.Get_rank()  # in this side's group
        none = (0,)
        self._src_shape = src.local_shape(rank) if self.is_source else none
        self._dst_shape = dst.local_shape(rank) if not self.is_source else none

    def __call__(self, a=None, out=None):
        if self.is_source:
            h = self._live()
            s, d, why = self._pointers(a, None)
            code = _lib.execute(h, s, d)
            if code:
                raise Error(code, why)
            return None
        return super().__call__(None, out=out)

    execute = __call__


class _Side:
    """One array of a batch: its layouts, dtype and this rank's local shapes."""

    def __init__(self, pair, i, rank):
        try:
            src, dst, dtype = pair
        except (TypeError, ValueError):
            raise TypeError(f"redist: pairs[{i}] must be (src, dst, dtype)") from None
        self.src, self.dst = _layout(src, f"pairs[{i}] src"), _layout(dst, f"pairs[{i}] dst")
        self.dtype, self.type = _dtype(dtype)
        self.src_shape, self.dst_shape = src.local_shape(rank), dst.local_shape(rank)


class Batch(Plan):
    """Several arrays moved by one plan, one message per peer pair
    (redist_plan_create_batch): pairs is a list of (src, dst, dtype). plan(arrays) takes this
    rank's local source arrays (a list) and returns the destination arrays (out= a list to
    fill); start(arrays, out), test() and wait() as for a plan (redist_start_batch)."""

    def __init__(self, pairs, comm, **options):
        _agree_dtypes(comm, lambda: self._setup_batch(pairs, comm, options))
        n = len(self._sides)
        srcs = (ctypes.c_void_p * n)(*[s.src._h for s in self._sides])
        dsts = (ctypes.c_void_p * n)(*[s.dst._h for s in self._sides])
        types = (_mpi.HANDLE * n)(*[_mpi.handle(s.type) for s in self._sides])
        h = ctypes.c_void_p()
        _check(_lib.plan_create_batch(n, srcs, dsts, types, _mpi.handle(comm),
                                      ctypes.byref(self._opt), ctypes.byref(h)))
        self._h = h.value

    def _setup_batch(self, pairs, comm, options):
        """This rank's checks of a batch's arguments (local); its dtypes, to agree."""
        pairs = list(pairs)
        if not pairs:
            raise ValueError("redist: a batch needs at least one (src, dst, dtype)")
        rank = comm.Get_rank()
        self._sides = [_Side(pair, i, rank) for i, pair in enumerate(pairs)]
        self.pairs = pairs
        first = self._sides[0]
        self.src, self.dst = first.src, first.dst
        self._common(first.dtype, comm, options, {s.src.ndim for s in self._sides})
        return tuple(s.dtype.str for s in self._sides)

    def empty_output(self, like=None):
        """This rank's local destination arrays (a list), uninitialised, in host memory."""
        self._live()
        return [np.empty(s.dst_shape, dtype=s.dtype, order=s.dst.order) for s in self._sides]

    def _batch_pointers(self, arrays, out):
        """(src addresses, dst addresses, why this rank refused some or None): a list of
        the wrong length is refused whole."""
        n = len(self._sides)
        ptrs = {"src": (ctypes.c_void_p * n)(), "dst": (ctypes.c_void_p * n)()}
        refused, where = [], []
        for role, seq in (("src", arrays), ("dst", out)):
            whole = _sequence_refusal(seq, n)
            if whole:
                refused.append((role, whole))
                where.extend((role, i) for i in range(n))
                continue
            for i, side in enumerate(self._sides):
                shape, lay = ((side.src_shape, side.src) if role == "src"
                              else (side.dst_shape, side.dst))
                addr, why = self._address(seq[i], shape, lay.order, role == "dst", side.dtype)
                ptrs[role][i] = addr
                if why:
                    refused.append((f"{role}[{i}]", why))
                    where.append((role, i))
        if not refused:
            return ptrs["src"], ptrs["dst"], None
        bad, why = self._refuse(refused)
        for role, i in where:
            ptrs[role][i] = bad
        return ptrs["src"], ptrs["dst"], why

    def __call__(self, arrays, out=None):
        h = self._live()
        if out is None:
            out = self.empty_output()
        s, d, why = self._batch_pointers(arrays, out)
        code = _lib.execute_batch(h, s, d)
        if code:
            raise Error(code, why)
        return out

    execute = __call__

    def start(self, arrays, out):
        """Starts the batch (nonblocking, redist_start_batch): the arrays must stay untouched
        until test() returns True or wait() returns (which returns out)."""
        h = self._live()
        s, d, why = self._batch_pointers(arrays, out)
        self._started(_lib.start_batch(h, s, d), (arrays, out), why)


def redistribute(a, src, dst, comm, dtype=None, out=None, **options):
    """One redistribution of a (this rank's local array of src) to dst: a plan made, executed
    and freed. A rank that holds nothing passes None; the dtype is then the other ranks'
    (dtype= names it where no rank passes an array). Device arrays make the plan's memory
    "cuda" (every rank's array on the device) or "auto" (some ranks' on the host or None,
    whose result is then a host array), unless memory= says."""
    def mine():
        cai = getattr(a, "__cuda_array_interface__", None)
        where = "none" if a is None else "device" if cai is not None else "host"
        if dtype is not None:
            return np.dtype(dtype).str, where
        known = np.dtype(cai["typestr"]) if cai is not None else getattr(a, "dtype", None)
        return (np.dtype(known).str if known is not None else None), where

    values = agreed(comm, mine)
    dtypes = {d for d, _ in values if d is not None}
    if not dtypes:
        raise TypeError("redist: no rank passes an array or dtype=, so none knows the dtype: "
                        "pass dtype=")
    if len(dtypes) > 1:
        raise mismatch("dtypes", [_dtype_names(d) for d in dtypes])
    wheres = {w for _, w in values}
    if options.get("memory") is None and "device" in wheres:  # "cuda": every array on it
        options["memory"] = "cuda" if wheres == {"device"} else "auto"
    with Plan(src, dst, dtypes.pop(), comm, **options) as plan:
        return plan(a, out=out)


def explain(src, dst, dtype, procs=None, **options):
    """What Plan(src, dst, dtype, <a communicator of procs ranks>, **options) would plan,
    without MPI communication: the dict of redist_explain's JSON (the keys of `redist explain
    --json` less the tool's own): the algorithm, its steps, messages, bytes, buffers and
    predicted seconds, the pattern's traffic, the cost model's parameters, and every
    algorithm's row ("algorithms", with why_not where one does not apply). procs: the
    communicator's size (default: the largest rank either layout uses, + 1). Raises what
    Plan would (a forced algorithm that cannot do the pair: REDIST_ERR_NOT_APPLICABLE;
    a scaling the dtype does not take, a reduce op MPI does not define on the dtype:
    REDIST_ERR_ARG)."""
    src, dst = _layout(src, "src"), _layout(dst, "dst")
    dtype, _ = _dtype(dtype)
    procs = (max(src._max_rank(), dst._max_rank()) + 1 if procs is None
             else _args.integer(procs, "procs"))
    opt, keep = _options(options, (src.ndim,))
    needed = ctypes.c_size_t(1 << 16)  # enough for every pair so far: one pass, not two
    buf = None
    while buf is None or needed.value > len(buf):
        buf = ctypes.create_string_buffer(needed.value)
        _check(_lib.explain(src._h, dst._h, procs, dtype.itemsize, ctypes.byref(opt), buf,
                            len(buf), ctypes.byref(needed)))
    del keep
    # after C's checks, as plan creation orders them
    why = _scaling_refusal(opt, dtype) or _mpi.op_refusal(opt.reduce, dtype)
    if why is not None:
        raise Error(ERR_ARG, why)
    return json.loads(buf.value.decode())


def algorithms():
    """The names the library knows ("auto" first)."""
    return [_lib.algorithm_name(i).decode() for i in range(_lib.algorithm_count())]


# The data addresses of the arrays last passed (a NumPy array's address is ~0.7 us to ask
# for, most of an execute's overhead when it is small), by weak reference: an entry is used
# only while its array is alive and is the one asked about (a dead array's id may be reused).
# An ndarray's data moves only by resize(refcheck=False), which NumPy documents as unsafe.
_ADDRESSES = {}


def _data_address(a):
    hit = _ADDRESSES.get(id(a))
    if hit is not None and hit[0]() is a:
        return hit[1]
    addr = a.__array_interface__["data"][0]
    if len(_ADDRESSES) >= 64:
        _ADDRESSES.clear()
    _ADDRESSES[id(a)] = (weakref.ref(a), addr)
    return addr


def _strides(shape, itemsize, order):
    """The strides of a contiguous array of shape in order."""
    out, step = [0] * len(shape), itemsize
    dims = range(len(shape)) if order == "F" else reversed(range(len(shape)))
    for k in dims:
        out[k] = step
        step *= max(shape[k], 1)
    return tuple(out)


class DeviceArray:
    """An array in device memory through the library's own backend (the CUDA driver, or
    REDIST_DEVICE_BACKEND=emulated's), for users without CuPy and for tests: it exposes
    __cuda_array_interface__ as CuPy arrays do. to_host() copies it into a NumPy array;
    DeviceArray.from_host(a) makes one from a NumPy array."""

    def __init__(self, shape, dtype, order="C"):
        self.shape = _args.integers(shape, "shape", bounds=_args.INT64)
        self.dtype = np.dtype(dtype)
        _args.choice(order, "order", _ORDERS)
        self.order = order
        self.nbytes = _args.nbytes(self.shape, self.dtype.itemsize)
        p = ctypes.c_void_p()
        _check(_lib.device_alloc(max(self.nbytes, 1), ctypes.byref(p)))
        self.ptr = p.value

    def __del__(self):
        if getattr(self, "ptr", None) and _lib is not None:
            _lib.device_free(self.ptr)
            self.ptr = None

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "version": 3,
                "data": (self.ptr, False),
                "strides": None if self.order == "C" else _strides(self.shape,
                                                                  self.dtype.itemsize, "F")}

    def to_host(self):
        a = np.empty(self.shape, dtype=self.dtype, order=self.order)
        if self.nbytes:
            _check(_lib.device_copy(a.ctypes.data, self.ptr, self.nbytes))
        return a

    @classmethod
    def from_host(cls, a):
        a = np.asarray(a)
        order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
        d = cls(a.shape, a.dtype, order)
        if d.nbytes:
            _check(_lib.device_copy(d.ptr, np.require(a, requirements=order).ctypes.data,
                                    d.nbytes))
        return d
