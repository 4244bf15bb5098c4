"""Layouts, plans and errors: the package's API over the C library (include/redist.h)."""
import ctypes
import weakref

import numpy as np

from . import _lib, _mpi

_ORDERS = {"C": 0, "F": 1}  # REDIST_ROW_MAJOR, REDIST_COL_MAJOR
ERR_ARG, ERR_STATE = -1, -9  # REDIST_ERR_ARG, REDIST_ERR_STATE
_MEMORY = {"host": 0, "cuda": 1, "auto": 2}
_TRANSPORT = {"auto": 0, "pack": 1, "datatype": 2}


class Error(Exception):
    """A redist error: code (a negative REDIST_ERR_* value), name ("REDIST_ERR_ARG", ...) and
    detail (the library's sentence about this failure). Collective calls raise it on every
    rank alike (the same code)."""

    def __init__(self, code, detail=None):
        self.code = code
        self.name = _lib.error_name(code).decode()
        self.detail = detail if detail is not None else _lib.last_error_detail().decode()
        super().__init__(f"{self.name}: {_lib.strerror(code).decode()}"
                         + (f" ({self.detail})" if self.detail else ""))


def _check(code):
    if code != 0:
        raise Error(code)


def _int64s(values, what, n):
    vals = tuple(int(v) for v in values)
    if len(vals) != n:
        raise ValueError(f"redist: {what} has {len(vals)} entries, the array {n} dimensions")
    return (ctypes.c_int64 * n)(*vals)


def _ints(values, n=None):
    vals = tuple(int(v) for v in values)
    return (ctypes.c_int * len(vals))(*vals), len(vals)


class _Layout:
    """What every layout has: the C handle, the shape, the order ("C" or "F")."""

    def __init__(self, handle, shape, order):
        self._h = handle
        self.shape = tuple(int(s) for s in shape)
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
        _check(_lib.layout_local_shape(self._h, int(rank), out))
        return tuple(out)

    def local_size(self, rank):
        n = ctypes.c_int64()
        _check(_lib.layout_local_size(self._h, int(rank), ctypes.byref(n)))
        return n.value

    def coords(self, rank):
        """rank's grid coordinates, or None if it is not in the layout."""
        out = (ctypes.c_int * self.ndim)()
        code = _lib.layout_coords(self._h, int(rank), out)
        return tuple(out) if code == 1 else None

    def _max_rank(self):
        """The largest communicator rank the layout uses."""
        ranks = getattr(self, "ranks", None)
        return max(ranks) if ranks else _lib.layout_nprocs(self._h) - 1

    def empty(self, dtype, comm, shared=False, **kw):
        """This rank's local array (of comm), uninitialised, stored as the layout says.
        shared=True: in memory shared with the other ranks of its node (redist_alloc,
        collective over comm), a SharedArray to free with its free() or a with block."""
        shape = self.local_shape(comm.Get_rank())
        if shared:
            return SharedArray(shape, dtype, comm, order=self.order)
        return np.empty(shape, dtype=dtype, order=self.order, **kw)

    def zeros(self, dtype, comm):
        return np.zeros(self.local_shape(comm.Get_rank()), dtype=dtype, order=self.order)


class BlockCyclic(_Layout):
    """A block-cyclic distribution (HPF / ScaLAPACK): along dimension k, blocks of blocks[k]
    elements dealt round robin over grid[k] coordinates, global block 0 on first[k]; grid
    positions (row-major) hold ranks[...] of the plan's communicator (default 0, 1, 2, ...);
    each local array stored in `order` ("C": row-major, "F": column-major)."""

    def __init__(self, shape, blocks, grid, order="C", first=None, ranks=None):
        shape = tuple(shape)
        n = len(shape)
        if order not in _ORDERS:
            raise ValueError(f"redist: order must be 'C' or 'F', not {order!r}")
        g, ng = _ints(grid)
        if ng != n:
            raise ValueError(f"redist: grid has {ng} entries, the array {n} dimensions")
        f = _ints(first)[0] if first is not None else None
        r = _ints(ranks)[0] if ranks is not None else None
        if first is not None and len(f) != n:
            raise ValueError(f"redist: first has {len(f)} entries, the array {n} dimensions")
        self.blocks = tuple(int(b) for b in blocks)
        self.grid = tuple(int(x) for x in grid)
        self.first = tuple(first) if first is not None else (0,) * n
        self.ranks = tuple(int(x) for x in ranks) if ranks is not None else None
        h = ctypes.c_void_p()
        _check(_lib.layout_create(n, _int64s(shape, "shape", n), _int64s(blocks, "blocks", n), g,
                                  f, r, _ORDERS[order], ctypes.byref(h)))
        super().__init__(h.value, shape, order)

    def global_index(self, rank):
        """One 1-D int64 array per dimension: the global index of each local index of rank's
        array (empty where it holds nothing), so f(*np.ix_(*idx)) fills the local array."""
        c = self.coords(rank)
        shape = self.local_shape(rank)
        out = []
        for k in range(self.ndim):
            l = np.arange(shape[k], dtype=np.int64)
            if c is None:
                out.append(l)
                continue
            b, p = self.blocks[k], self.grid[k]
            cc = (c[k] - self.first[k]) % p
            out.append(((l // b) * p + cc) * b + l % b)
        return tuple(out)


class GenBlock(_Layout):
    """A GEN_BLOCK distribution: along dimension k, sizes[k] lists the grid[k] blocks' sizes
    (summing to shape[k]), block i on coordinate (first[k] + i) mod grid[k]."""

    def __init__(self, shape, sizes, grid, order="C", first=None, ranks=None):
        shape = tuple(shape)
        n = len(shape)
        g, _ = _ints(grid)
        f = _ints(first)[0] if first is not None else None
        r = _ints(ranks)[0] if ranks is not None else None
        self._sizes = [(ctypes.c_int64 * len(s))(*[int(x) for x in s]) for s in sizes]
        self.ranks = tuple(int(x) for x in ranks) if ranks is not None else None
        if len(self._sizes) != n:
            raise ValueError(f"redist: sizes has {len(self._sizes)} lists, the array {n} "
                             "dimensions")
        ptrs = (ctypes.POINTER(ctypes.c_int64) * n)(
            *[ctypes.cast(s, ctypes.POINTER(ctypes.c_int64)) for s in self._sizes])
        self.sizes = tuple(tuple(int(x) for x in s) for s in sizes)
        self.grid = tuple(int(x) for x in grid)
        self.first = tuple(first) if first is not None else (0,) * n
        h = ctypes.c_void_p()
        _check(_lib.layout_create_gen_block(n, _int64s(shape, "shape", n), None, g, f, r,
                                            _ORDERS[order], ptrs, ctypes.byref(h)))
        super().__init__(h.value, shape, order)

    def global_index(self, rank):
        c = self.coords(rank)
        shape = self.local_shape(rank)
        out = []
        for k in range(self.ndim):
            l = np.arange(shape[k], dtype=np.int64)
            if c is not None:
                p = self.grid[k]
                i = (c[k] - self.first[k]) % p  # the block this coordinate holds
                l = l + sum(self.sizes[k][:i])
            out.append(l)
        return tuple(out)


def _options(opts):
    """A filled redist_options from keyword arguments named as the C fields; the ctypes
    objects it points to are kept with it."""
    o = _lib.Options()
    _lib.options_init(ctypes.byref(o))
    keep = []
    for key, val in opts.items():
        if val is None:
            continue
        if key in ("algorithm", "alltoall_algorithm"):
            b = str(val).encode()
            keep.append(b)
            setattr(o, key, b)
        elif key == "permutation":
            arr, _ = _ints(val)
            keep.append(arr)
            o.permutation = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int))
        elif key in ("alpha", "beta"):
            z = complex(val)
            getattr(o, key)[0], getattr(o, key)[1] = z.real, z.imag
        elif key == "memory":
            o.memory = _MEMORY[val] if isinstance(val, str) else int(val)
        elif key == "transport":
            o.transport = _TRANSPORT[val] if isinstance(val, str) else int(val)
        elif key == "stream":
            o.stream = int(val)
        elif key in ("check_arguments", "shared_memory", "hybrid_degree", "bmmc_method",
                     "synchronous_receive", "conjugate", "threads", "max_buffer_bytes"):
            setattr(o, key, int(val))
        else:
            raise TypeError(f"redist: unknown option {key!r}")
    return o, keep


_NULL = None


class Plan:
    """A redistribution plan (redist_plan_create): made once, executed many times. Collective
    over comm, as are free() and every execute. Options as keyword arguments named as in C
    (algorithm, permutation, alpha, beta, conjugate, max_buffer_bytes, threads, memory,
    transport, shared_memory, check_arguments, hybrid_degree, bmmc_method,
    synchronous_receive, alltoall_algorithm, stream). Free it with free() or a with block:
    freeing is collective, so garbage collection does not do it."""

    def __init__(self, src, dst, dtype, comm, **options):
        self._setup(src, dst, dtype, comm, options)
        h = ctypes.c_void_p()
        _check(_lib.plan_create(src._h, dst._h, _mpi.handle(self._type), _mpi.handle(comm),
                                ctypes.byref(self._opt), ctypes.byref(h)))
        self._h = h.value
        rank = comm.Get_rank()
        self._src_shape = src.local_shape(rank)
        self._dst_shape = dst.local_shape(rank)

    def _setup(self, src, dst, dtype, comm, options):
        self._h = None
        self.src, self.dst, self.comm = src, dst, comm
        self.dtype = np.dtype(dtype)
        self._type = _mpi.datatype(self.dtype)
        self._opt, self._keep = _options(options)
        self._check_arguments = self._opt.check_arguments
        self.memory = self._opt.memory
        self._active = None  # the arrays of a started execution, kept alive until it ends

    # -- the arrays ------------------------------------------------------------------------
    def _address(self, a, shape, order, role, writable, dtype=None):
        """The address to pass for array a, NULL for a rank that holds nothing, or the
        library's refusal sentinel with why (every rank then gets REDIST_ERR_ARG)."""
        if 0 in shape:  # this rank holds nothing of the array
            return _NULL
        cai = getattr(a, "__cuda_array_interface__", None)
        dtype = self.dtype if dtype is None else dtype
        why = (self._device_refusal(cai, shape, order, role, writable, dtype) if cai is not None
               else self._host_refusal(a, shape, order, role, writable, dtype))
        if why is not None:
            if not self._check_arguments:  # no agreement asked for: this rank alone
                raise Error(ERR_ARG, why)
            return _lib.bad_buffer(why.encode())
        if cai is not None:
            return cai["data"][0]
        return _data_address(a)

    def _host_refusal(self, a, shape, order, role, writable, dtype):
        """Why a host array cannot be passed as is (None: it can)."""
        if not isinstance(a, np.ndarray):
            return f"{role} is {type(a).__name__}, not a NumPy array"
        if a.dtype != dtype:
            return f"{role} has dtype {a.dtype}, the plan {dtype}"
        if a.shape != shape:
            return f"{role} has shape {a.shape}, this rank's local shape is {shape}"
        if not (a.flags.f_contiguous if order == "F" else a.flags.c_contiguous):
            return (f"{role} is not {'Fortran' if order == 'F' else 'C'}-contiguous (the "
                    "layout's order): redist never copies an array silently")
        if writable and not a.flags.writeable:
            return f"{role} is read-only"
        return None

    def _device_refusal(self, cai, shape, order, role, writable, dtype):
        """Why a device array (__cuda_array_interface__: CuPy, Numba, ...) cannot be passed
        as is (None: it can)."""
        if self.memory == 0:
            return (f"{role} is device memory (__cuda_array_interface__) and the plan's is host "
                    "memory: make the plan with memory='cuda' or 'auto'")
        dt = np.dtype(cai["typestr"])
        if dt != dtype:
            return f"{role} has dtype {dt}, the plan {dtype}"
        if tuple(cai["shape"]) != shape:
            return f"{role} has shape {tuple(cai['shape'])}, this rank's local shape is {shape}"
        strides = cai.get("strides")
        have = tuple(strides) if strides is not None else _strides(shape, dt.itemsize, "C")
        want = _strides(shape, dt.itemsize, order)
        if any(h != w for h, w, n in zip(have, want, shape) if n > 1):
            return (f"{role} is not {'Fortran' if order == 'F' else 'C'}-contiguous (the "
                    "layout's order): redist never copies an array silently")
        if writable and cai["data"][1]:
            return f"{role} is read-only"
        return None

    def _pointers(self, a, b):
        if self._h is None:
            raise Error(ERR_STATE, "the plan was freed")
        return (self._address(a, self._src_shape, self.src.order, "src", False),
                self._address(b, self._dst_shape, self.dst.order, "dst", True))

    def empty_output(self, like=None):
        """This rank's local destination array, uninitialised: in host memory, or in device
        memory like `like`'s (a CuPy array gives a CuPy array, another device array a
        redist.DeviceArray)."""
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
        if out is None:
            out = self.empty_output(like=a)
        s, d = self._pointers(a, out)
        _check(_lib.execute(self._h, s, d))
        return out

    execute = __call__

    def start(self, a, out):
        """Starts an execution (nonblocking): a and out must stay untouched until test()
        returns True or wait() returns."""
        s, d = self._pointers(a, out)
        _check(_lib.start(self._h, s, d))
        self._active = (a, out)

    def test(self):
        """Progresses a started execution; True once it is complete."""
        done = ctypes.c_int()
        _check(_lib.test(self._h, ctypes.byref(done)))
        if done.value:
            self._active = None
        return bool(done.value)

    def wait(self):
        """Completes a started execution; returns its destination array."""
        _check(_lib.wait(self._h))
        out = self._active[1] if self._active else None
        self._active = None
        return out

    # -- about the plan ---------------------------------------------------------------------
    @property
    def algorithm(self):
        return _lib.plan_algorithm(self._h).decode() if self._h else None

    def stats(self):
        """redist_stats as a dict (this rank's figures, and maxima over the ranks)."""
        st = _lib.Stats()
        _check(_lib.plan_stats(self._h, ctypes.byref(st)))
        return {name: getattr(st, name) for name, _ in _lib.Stats._fields_}

    def free(self):
        """Frees the plan (collective). Calling it again does nothing."""
        if self._h is not None:
            h = ctypes.c_void_p(self._h)
            self._h = None
            _check(_lib.plan_free(ctypes.byref(h)))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
        return False


class InterPlan(Plan):
    """A plan between two groups joined by an intercommunicator (redist_plan_create_inter):
    the source group (is_source True) holds src, whose ranks number its own group; the other
    group holds dst, numbered in its own group. Each side passes only its own array: the
    source side plan(a) (returns None), the destination side plan(None) or plan(None, out=b)."""

    def __init__(self, src, dst, dtype, intercomm, is_source, **options):
        self._setup(src, dst, dtype, intercomm, options)
        self.is_source = bool(is_source)
        h = ctypes.c_void_p()
        _check(_lib.plan_create_inter(src._h, dst._h, _mpi.handle(self._type),
                                      _mpi.handle(intercomm), int(self.is_source),
                                      ctypes.byref(self._opt), ctypes.byref(h)))
        self._h = h.value
        rank = intercomm.Get_rank()  # in this side's group
        none = (0,) * 1
        self._src_shape = src.local_shape(rank) if self.is_source else none
        self._dst_shape = dst.local_shape(rank) if not self.is_source else none

    def __call__(self, a=None, out=None):
        if self.is_source:
            s, d = self._pointers(a, None)
            _check(_lib.execute(self._h, s, d))
            return None
        return super().__call__(None, out=out)

    execute = __call__


class Batch(Plan):
    """Several arrays moved by one plan, one message per peer pair
    (redist_plan_create_batch): pairs is a list of (src, dst, dtype). plan(arrays) takes this
    rank's local source arrays (a list) and returns the destination arrays (out= a list to
    fill)."""

    def __init__(self, pairs, comm, **options):
        pairs = list(pairs)
        if not pairs:
            raise ValueError("redist: a batch needs at least one (src, dst, dtype)")
        self._setup(pairs[0][0], pairs[0][1], pairs[0][2], comm, options)
        self.pairs = pairs
        n = len(pairs)
        self._types = [_mpi.datatype(dt) for _, _, dt in pairs]
        srcs = (ctypes.c_void_p * n)(*[p[0]._h for p in pairs])
        dsts = (ctypes.c_void_p * n)(*[p[1]._h for p in pairs])
        types = (_mpi.HANDLE * n)(*[_mpi.handle(t) for t in self._types])
        h = ctypes.c_void_p()
        _check(_lib.plan_create_batch(n, srcs, dsts, types, _mpi.handle(comm),
                                      ctypes.byref(self._opt), ctypes.byref(h)))
        self._h = h.value
        rank = comm.Get_rank()
        self._plans = [_Side(s, d, dt, rank) for s, d, dt in pairs]

    def __call__(self, arrays, out=None):
        if self._h is None:
            raise Error(ERR_STATE, "the plan was freed")
        if len(arrays) != len(self._plans):
            raise ValueError(f"redist: {len(arrays)} arrays for a batch of {len(self._plans)}")
        if out is None:
            out = [np.empty(p.dst_shape, dtype=p.dtype, order=p.dst.order) for p in self._plans]
        n = len(self._plans)
        s = (ctypes.c_void_p * n)()
        d = (ctypes.c_void_p * n)()
        for i, (p, a, b) in enumerate(zip(self._plans, arrays, out)):
            s[i] = self._address(a, p.src_shape, p.src.order, f"src[{i}]", False, p.dtype)
            d[i] = self._address(b, p.dst_shape, p.dst.order, f"dst[{i}]", True, p.dtype)
        _check(_lib.execute_batch(self._h, s, d))
        return out

    execute = __call__


class _Side:
    """One array of a batch: its layouts, dtype and this rank's local shapes."""

    def __init__(self, src, dst, dtype, rank):
        self.src, self.dst, self.dtype = src, dst, np.dtype(dtype)
        self.src_shape, self.dst_shape = src.local_shape(rank), dst.local_shape(rank)


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
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.order = order
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize
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


class SharedArray(np.ndarray):
    """A NumPy array in node-shared memory (redist_alloc over comm, collective): plans copy
    on-node traffic between such arrays once. free() is collective over comm (redist_free),
    as is leaving a with block; garbage collection never frees it (a collective there could
    hang): an array dropped without free() stays allocated until MPI_Finalize."""

    def __new__(cls, shape, dtype, comm, order="C"):
        dtype = np.dtype(dtype)
        shape = tuple(int(x) for x in shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        base = ctypes.c_void_p()
        _check(_lib.alloc(_mpi.handle(comm), nbytes, ctypes.byref(base)))
        buf = (ctypes.c_char * max(nbytes, 1)).from_address(base.value)
        a = np.ndarray.__new__(cls, shape, dtype=dtype, buffer=buf, order=order)
        a._redist_base = base.value
        return a

    def __array_finalize__(self, obj):
        self._redist_base = None  # views and copies own nothing

    def free(self):
        """Frees the allocation (collective over its comm). Calling it again does nothing;
        the array must not be used after."""
        if getattr(self, "_redist_base", None):
            base, self._redist_base = self._redist_base, None
            _check(_lib.free_shared(base))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()


def redistribute(a, src, dst, comm, dtype=None, out=None, **options):
    """One redistribution of a (this rank's local array of src) to dst: a plan made, executed
    and freed."""
    if dtype is None and isinstance(a, np.ndarray):
        dtype = a.dtype
    elif dtype is None and hasattr(a, "__cuda_array_interface__"):
        dtype = np.dtype(a.__cuda_array_interface__["typestr"])
        options.setdefault("memory", "cuda")
    if dtype is None:
        raise TypeError("redist: dtype is needed on a rank that passes no array")
    with Plan(src, dst, dtype, comm, **options) as plan:
        return plan(a, out=out)


def explain(src, dst, dtype, procs=None, **options):
    """What Plan(src, dst, dtype, <a communicator of procs ranks>, **options) would plan,
    without MPI communication: the dict of redist_explain's JSON (the keys of `redist explain
    --json` less the tool's own): the algorithm, its steps, messages, bytes, buffers and
    predicted seconds, the pattern's traffic, the cost model's parameters, and every
    algorithm's row ("algorithms", with why_not where one does not apply). procs: the
    communicator's size (default: the largest rank either layout uses, + 1). Raises Error as
    Plan would (a forced algorithm that cannot do the pair: REDIST_ERR_NOT_APPLICABLE)."""
    import json

    dtype = np.dtype(dtype)
    _mpi.datatype(dtype)  # the dtypes a plan takes, refused alike
    if procs is None:
        procs = max(src._max_rank(), dst._max_rank()) + 1
    opt, keep = _options(options)
    needed = ctypes.c_size_t(1 << 16)  # enough for every pair so far: one pass, not two
    buf = None
    while buf is None or needed.value > len(buf):
        buf = ctypes.create_string_buffer(needed.value)
        _check(_lib.explain(src._h, dst._h, int(procs), dtype.itemsize, ctypes.byref(opt), buf,
                            len(buf), ctypes.byref(needed)))
    del keep
    return json.loads(buf.value.decode())


def algorithms():
    """The names the library knows ("auto" first)."""
    return [_lib.algorithm_name(i).decode() for i in range(_lib.algorithm_count())]
