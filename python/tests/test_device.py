"""Device arrays (__cuda_array_interface__, as CuPy's) go to device plans without a copy. In
make check the device is the library's emulated one (REDIST_DEVICE_BACKEND=emulated: memory
the host cannot touch) and the arrays redist.DeviceArray, a stand-in for CuPy's; on a GPU node
the same tests run on CUDA (and CuPy's arrays where CuPy is installed)."""
import numpy as np
import pytest
from conftest import global_values, same_everywhere
from test_plan import random_layout

import redist



def _no_device():
    try:
        redist.DeviceArray((1,), np.float64)
        return None
    except redist.Error as e:
        return str(e)


pytestmark = pytest.mark.skipif(_no_device() is not None,
                                reason=f"no device ({_no_device()}); make python-check sets "
                                       "REDIST_DEVICE_BACKEND=emulated")


@pytest.mark.parametrize("memory", ["cuda", "auto"])
def test_device_arrays(comm, memory):
    rng = np.random.default_rng(7)
    rank = comm.Get_rank()
    for case in range(6):
        shape = (int(rng.integers(1, 20)), int(rng.integers(1, 15)))
        src = random_layout(rng, shape, comm.Get_size())
        dst = random_layout(rng, shape, comm.Get_size())
        with redist.Plan(src, dst, np.complex64, comm, memory=memory, alpha=2.0) as plan:
            a = redist.DeviceArray.from_host(global_values(src, rank, np.complex64))
            b = plan(a)  # a device array in, a device array out
            assert hasattr(b, "__cuda_array_interface__")
            assert np.array_equal(b.to_host(), 2 * global_values(dst, rank, np.complex64))
            if memory == "auto":  # host source, device destination
                h = plan.empty_output()
                plan(global_values(src, rank, np.complex64), out=b)
                assert np.array_equal(b.to_host(), 2 * global_values(dst, rank, np.complex64))
                del h


def test_device_array_in_a_host_plan(comm):
    src = redist.BlockCyclic((8, 6), (2, 2), (comm.Get_size(), 1))
    dst = redist.BlockCyclic((8, 6), (3, 3), (1, comm.Get_size()))
    rank = comm.Get_rank()
    with redist.Plan(src, dst, np.float64, comm) as plan:
        a = redist.DeviceArray.from_host(src.zeros(np.float64, comm))
        code = 0
        try:
            plan(a)
        except redist.Error as e:
            code = e.name
        assert same_everywhere(comm, code)
        held = src.local_size(rank) > 0
        assert comm.allreduce(int(held)) == 0 or code == "REDIST_ERR_ARG"


def _cupy():
    try:
        import cupy
        return cupy
    except ImportError:
        return None


@pytest.mark.skipif(_cupy() is None, reason="CuPy is not installed (not in Debian): CuPy's own "
                    "arrays run on a GPU node (tests/gpu/run.sh); redist.DeviceArray stands in")
@pytest.mark.parametrize("memory", ["cuda", "auto"])
def test_cupy_arrays(comm, memory):
    """CuPy's arrays as they are, on a plan's stream: a CuPy array in, a CuPy array out, every
    element; a strided CuPy array refused on every rank."""
    cupy = _cupy()
    rng = np.random.default_rng(11)
    rank = comm.Get_rank()
    stream = cupy.cuda.Stream(non_blocking=True)
    for case in range(4):
        shape = (int(rng.integers(1, 40)), int(rng.integers(1, 30)))
        src = random_layout(rng, shape, comm.Get_size())
        dst = random_layout(rng, shape, comm.Get_size())
        with redist.Plan(src, dst, np.float64, comm, memory=memory, stream=stream.ptr) as plan:
            a = cupy.asarray(global_values(src, rank, np.float64), order=src.order)
            b = plan(a)
            assert isinstance(b, cupy.ndarray)
            assert np.array_equal(cupy.asnumpy(b), global_values(dst, rank, np.float64))
            wide = cupy.zeros((a.shape[0], 2 * a.shape[1] + 1))[:, ::2] if a.size else a
            code = 0
            try:
                plan(wide, out=b)
            except redist.Error as e:
                code = e.name
            assert same_everywhere(comm, code)
            assert comm.allreduce(int(a.size > 0)) == 0 or code == "REDIST_ERR_ARG"


def test_one_shot_device_array_and_none(comm):
    """Rank 0 holds the source in device memory, the others pass None: they learn the dtype
    and the memory ("auto": their results are host arrays; at 1 rank "cuda")."""
    rank, p = comm.Get_rank(), comm.Get_size()
    src = redist.BlockCyclic((10, 4), (3, 2), (1, 1), ranks=[0])
    dst = redist.BlockCyclic((10, 4), (2, 2), (p, 1), order="F")
    a = redist.DeviceArray.from_host(global_values(src, 0, np.complex64)) if rank == 0 else None
    b = redist.redistribute(a, src, dst, comm)
    host = b.to_host() if rank == 0 else b
    assert (rank == 0) == hasattr(b, "__cuda_array_interface__")
    assert np.array_equal(host, global_values(dst, rank, np.complex64))


def test_device_arrays_pulled_on_the_node(comm):
    """On one node a device plan whose algorithm moves messages through the node's shared
    memory pulls each of them from the sender's device array (inter-process memory): its
    stats count every message received, and the data is right."""
    rng = np.random.default_rng(11)
    rank = comm.Get_rank()
    for case in range(4):
        shape = (int(rng.integers(1, 30)), int(rng.integers(1, 25)))
        src = random_layout(rng, shape, comm.Get_size())
        dst = random_layout(rng, shape, comm.Get_size())
        with redist.Plan(src, dst, np.float64, comm, memory="cuda",
                         algorithm="direct-async") as plan:
            st = plan.stats()
            assert st["messages_device_ipc"] == st["messages_received"]
            assert st["bytes_device_ipc"] == st["bytes_received"]
            a = redist.DeviceArray.from_host(global_values(src, rank, np.float64))
            b = plan(a)
            assert np.array_equal(b.to_host(), global_values(dst, rank, np.float64))
