"""The C library, loaded with ctypes: where it is found, and the prototypes of the calls the
package makes (include/redist.h is the reference; every struct here mirrors one there).

The library is found through, in order: REDIST_LIBRARY (a path to libredist.so), pkg-config's
`redist` (its libdir), the system's loader path (ctypes.util.find_library). When none works the
error says what was tried.
"""
import ctypes
import ctypes.util
import os
import shutil
import subprocess

c_int, c_int64, c_double, c_char_p, c_void_p = (ctypes.c_int, ctypes.c_int64, ctypes.c_double,
                                                ctypes.c_char_p, ctypes.c_void_p)


class Options(ctypes.Structure):
    """redist_options, field for field (include/redist.h)."""
    _fields_ = [
        ("algorithm", c_char_p),
        ("check_arguments", c_int),
        ("shared_memory", c_int),
        ("transport", c_int),
        ("hybrid_degree", c_int),
        ("bmmc_method", c_int),
        ("synchronous_receive", c_int),
        ("alltoall_algorithm", c_char_p),
        ("max_buffer_bytes", c_int64),
        ("permutation", ctypes.POINTER(c_int)),
        ("alpha", c_double * 2),
        ("beta", c_double * 2),
        ("conjugate", c_int),
        ("threads", c_int),
        ("memory", c_int),
        ("stream", c_void_p),
        ("reduce", c_int64),  # MPI_Op's storage (a pointer or an int): options_init sets it
    ]


class Stats(ctypes.Structure):
    """redist_stats, field for field."""
    _fields_ = [
        ("steps", c_int),
        ("messages_sent", c_int64),
        ("bytes_sent", c_int64),
        ("predicted_seconds", c_double),
        ("messages_received", c_int64),
        ("bytes_received", c_int64),
        ("bytes_copied", c_int64),
        ("max_messages_per_rank", c_int64),
        ("max_bytes_per_rank", c_int64),
        ("runs_per_period", c_int64),
        ("transport", c_int),
        ("shared_memory", c_int),
        ("bounded", c_int),
        ("buffer_bytes", c_int64),
        ("threads", c_int),
        ("cores", c_int),
        ("nodes", c_int),
        ("ranks_per_node", c_int),
        ("messages_off_node", c_int64),
        ("bytes_off_node", c_int64),
        ("messages_device_ipc", c_int64),
        ("bytes_device_ipc", c_int64),
        ("messages_device_mpi", c_int64),
    ]


def _candidates():
    """(where, path) pairs to try, in order."""
    env = os.environ.get("REDIST_LIBRARY")
    if env:
        yield "REDIST_LIBRARY", env
        return
    if shutil.which("pkg-config"):
        try:
            libdir = subprocess.run(["pkg-config", "--variable=libdir", "redist"],
                                    capture_output=True, text=True, check=True).stdout.strip()
            if libdir:
                yield "pkg-config redist", os.path.join(libdir, "libredist.so")
        except (OSError, subprocess.CalledProcessError):
            pass
    found = ctypes.util.find_library("redist")
    if found:
        yield "the loader path", found


def _load():
    tried = []
    for where, path in _candidates():
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL), path
        except OSError as e:
            tried.append(f"{where}: {path} ({e})")
    if not tried:
        tried = ["REDIST_LIBRARY (not set)", "pkg-config redist (none)",
                 "the loader path (no libredist)"]
    raise ImportError("redist: cannot load the C library libredist; tried " + "; ".join(tried)
                      + ". Set REDIST_LIBRARY to the path of libredist.so.")


lib, path = _load()


def _proto(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


P = ctypes.POINTER
strerror = _proto("redist_strerror", c_char_p, c_int)
error_name = _proto("redist_error_name", c_char_p, c_int)
last_error_detail = _proto("redist_last_error_detail", c_char_p)
options_init = _proto("redist_options_init", None, P(Options))
algorithm_count = _proto("redist_algorithm_count", c_int)
algorithm_name = _proto("redist_algorithm_name", c_char_p, c_int)
layout_create = _proto("redist_layout_create", c_int, c_int, P(c_int64), P(c_int64), P(c_int),
                       P(c_int), P(c_int), c_int, P(c_void_p))
layout_create_gen_block = _proto("redist_layout_create_gen_block", c_int, c_int, P(c_int64),
                                 P(c_int64), P(c_int), P(c_int), P(c_int), c_int,
                                 P(P(c_int64)), P(c_void_p))
layout_create_boxes = _proto("redist_layout_create_boxes", c_int, c_int, P(c_int64), c_int,
                             P(c_int64), P(c_int64), c_int, P(c_void_p))
layout_local_shape = _proto("redist_layout_local_shape", c_int, c_void_p, c_int, P(c_int64))
layout_local_size = _proto("redist_layout_local_size", c_int, c_void_p, c_int, P(c_int64))
layout_free = _proto("redist_layout_free", c_int, P(c_void_p))
execute = _proto("redist_execute", c_int, c_void_p, c_void_p, c_void_p)
start = _proto("redist_start", c_int, c_void_p, c_void_p, c_void_p)
test = _proto("redist_test", c_int, c_void_p, P(c_int))
wait = _proto("redist_wait", c_int, c_void_p)
plan_stats = _proto("redist_plan_stats", c_int, c_void_p, P(Stats))
plan_algorithm = _proto("redist_plan_algorithm", c_char_p, c_void_p)
plan_free = _proto("redist_plan_free", c_int, P(c_void_p))
bad_buffer = _proto("redist_bad_buffer", c_void_p, c_char_p)
layout_coords = _proto("redist_layout_coords", c_int, c_void_p, c_int, P(c_int))
layout_ndims = _proto("redist_layout_ndims", c_int, c_void_p)
layout_nprocs = _proto("redist_layout_nprocs", c_int, c_void_p)
explain = _proto("redist_explain", c_int, c_void_p, c_void_p, c_int, ctypes.c_size_t, P(Options),
                 c_char_p, ctypes.c_size_t, P(ctypes.c_size_t))


coll = {}


def bind_mpi(handle_type):
    """The calls that take MPI handles, once the handle type is known (mpi4py's: a pointer in
    Open MPI, an int in MPICH)."""
    global plan_create, plan_create_inter, plan_create_batch
    plan_create = _proto("redist_plan_create", c_int, c_void_p, c_void_p, handle_type,
                         handle_type, P(Options), P(c_void_p))
    plan_create_inter = _proto("redist_plan_create_inter", c_int, c_void_p, c_void_p,
                               handle_type, handle_type, c_int, P(Options), P(c_void_p))
    plan_create_batch = _proto("redist_plan_create_batch", c_int, c_int, P(c_void_p),
                               P(c_void_p), P(handle_type), handle_type, P(Options),
                               P(c_void_p))
    global alloc
    alloc = _proto("redist_alloc", c_int, handle_type, c_int64, P(c_void_p))
    global plan_create_bmmc
    plan_create_bmmc = _proto("redist_plan_create_bmmc", c_int, c_int, c_int, P(ctypes.c_uint64),
                              ctypes.c_uint64, handle_type, handle_type, P(Options),
                              P(c_void_p))
    h, i64 = handle_type, c_int64
    coll.update(  # the basic operations: (send, recv, count, type, [op | root | shift], comm)
        bcast=_proto("redist_bcast", c_int, c_void_p, i64, h, c_int, h, c_char_p),
        reduce=_proto("redist_reduce", c_int, c_void_p, c_void_p, i64, h, h, c_int, h,
                      c_char_p),
        allreduce=_proto("redist_allreduce", c_int, c_void_p, c_void_p, i64, h, h, h, c_char_p),
        scan=_proto("redist_scan", c_int, c_void_p, c_void_p, i64, h, h, h, c_char_p),
        scatter=_proto("redist_scatter", c_int, c_void_p, c_void_p, i64, h, c_int, h, c_char_p),
        gather=_proto("redist_gather", c_int, c_void_p, c_void_p, i64, h, c_int, h, c_char_p),
        allgather=_proto("redist_allgather", c_int, c_void_p, c_void_p, i64, h, h, c_char_p),
        reduce_scatter=_proto("redist_reduce_scatter", c_int, c_void_p, c_void_p, i64, h, h, h,
                              c_char_p),
        alltoall=_proto("redist_alltoall", c_int, c_void_p, c_void_p, i64, h, h, c_char_p),
        shift=_proto("redist_shift", c_int, c_void_p, c_void_p, i64, h, c_int, h, c_char_p))
free_shared = _proto("redist_free", c_int, c_void_p)
device_alloc = _proto("redist_device_alloc", c_int, ctypes.c_size_t, P(c_void_p))
device_free = _proto("redist_device_free", c_int, c_void_p)
device_copy = _proto("redist_device_copy", c_int, c_void_p, c_void_p, ctypes.c_size_t)
execute_batch = _proto("redist_execute_batch", c_int, c_void_p, P(c_void_p), P(c_void_p))
start_batch = _proto("redist_start_batch", c_int, c_void_p, P(c_void_p), P(c_void_p))
u64 = ctypes.c_uint64
bmmc_identity = _proto("redist_bmmc_identity", c_int, c_int, P(u64))
bmmc_transpose = _proto("redist_bmmc_transpose", c_int, c_int, c_int, P(u64))
bmmc_bit_reversal = _proto("redist_bmmc_bit_reversal", c_int, c_int, P(u64))
bmmc_vector_reversal = _proto("redist_bmmc_vector_reversal", c_int, c_int, P(u64), P(u64))
bmmc_gray = _proto("redist_bmmc_gray", c_int, c_int, P(u64))
bmmc_gray_inverse = _proto("redist_bmmc_gray_inverse", c_int, c_int, P(u64))
bmmc_shuffle = _proto("redist_bmmc_shuffle", c_int, c_int, c_int, P(u64))
