"""Hostile arguments: each raises redist.Error with the same code on every rank, and nobody
hangs (a rank whose array is refused still makes the collective call)."""
import numpy as np
import pytest
from conftest import same_everywhere

import redist


def layouts(p):
    return (redist.BlockCyclic((24, 10), (5, 3), (p, 1)),
            redist.BlockCyclic((24, 10), (7, 2), (1, p)))


def expect_everywhere(comm, fn, name):
    try:
        fn()
        code = 0
    except redist.Error as e:
        code = e.name
    assert same_everywhere(comm, code), f"ranks disagree: {comm.allgather(code)}"
    assert code == name, f"{code}, expected {name}"


@pytest.mark.parametrize("bad", ["dtype", "shape", "strided", "readonly", "list"])
def test_bad_array_on_one_rank(comm, bad):
    src, dst = layouts(comm.Get_size())
    rank = comm.Get_rank()
    last = comm.Get_size() - 1
    with redist.Plan(src, dst, np.float64, comm) as plan:
        a = src.zeros(np.float64, comm)
        b = plan.empty_output()
        if rank == last:
            if bad == "dtype":
                a = a.astype(np.float32)
            elif bad == "shape":
                a = np.zeros(a.size + 1)
            elif bad == "strided":
                a = np.zeros((a.shape[0], 2 * a.shape[1]))[:, ::2]
            elif bad == "readonly":
                b.flags.writeable = False
            else:
                a = a.tolist()
        expect_everywhere(comm, lambda: plan(a, out=b), "REDIST_ERR_ARG")
        b = plan.empty_output()  # and the plan still works
        plan(src.zeros(np.float64, comm), out=b)


def test_unknown_algorithm_and_option(comm):
    src, dst = layouts(comm.Get_size())
    expect_everywhere(comm, lambda: redist.Plan(src, dst, np.float64, comm, algorithm="nope"),
                      "REDIST_ERR_UNKNOWN_ALGORITHM")
    with pytest.raises(TypeError):
        redist.Plan(src, dst, np.float64, comm, no_such_option=1)
    with pytest.raises(TypeError):
        redist.Plan(src, dst, np.dtype("U4"), comm)


def test_options_differ_between_ranks(comm):
    src, dst = layouts(comm.Get_size())
    alg = "direct" if comm.Get_rank() == 0 else "direct-async"
    want = "REDIST_ERR_MISMATCH" if comm.Get_size() > 1 else 0

    def make():
        redist.Plan(src, dst, np.float64, comm, algorithm=alg).free()
    expect_everywhere(comm, make, want)


def test_freed_plan(comm):
    src, dst = layouts(comm.Get_size())
    plan = redist.Plan(src, dst, np.float64, comm)
    plan.free()
    plan.free()  # again: nothing
    with pytest.raises(redist.Error) as e:
        plan(src.zeros(np.float64, comm))
    assert e.value.name == "REDIST_ERR_STATE"


def test_bad_layout():
    with pytest.raises(redist.Error) as e:
        redist.BlockCyclic((10,), (0,), (1,))
    assert e.value.name == "REDIST_ERR_ARG" and "block" in e.value.detail
    with pytest.raises(ValueError):
        redist.BlockCyclic((10, 10), (2,), (1, 1))
