"""A plan's life: every method of a freed plan (of each kind) raises the same clear
REDIST_ERR_STATE without reaching C; batches start, test and wait; explain refuses what Plan
refuses; refused arrays are each reported under their own name."""
import os
import re

import numpy as np
import pytest
from conftest import global_values, same_everywhere, two_groups
from test_plan import random_layout

import redist


def spread(shape, p, order="C"):
    return redist.BlockCyclic(shape, (3, 2), (p, 1), order=order)


def make(kind, comm):
    """A plan of kind, and a function calling each of its methods (name -> call)."""
    p = comm.Get_size()
    src, dst = spread((13, 5), p), spread((13, 5), p, order="F")
    if kind == "plan":
        plan = redist.Plan(src, dst, np.float64, comm)
        a, b = src.zeros(np.float64, comm), dst.zeros(np.float64, comm)
        args = (a, b)
    elif kind == "batch":
        plan = redist.Batch([(src, dst, np.float64)], comm)
        args = ([src.zeros(np.float64, comm)], [dst.zeros(np.float64, comm)])
    else:
        n = 4
        plan = redist.bmmc.BmmcPlan(n, 1, redist.bmmc.bit_reversal(n), 0, np.int64, comm)
        args = (np.zeros(16 // p, np.int64), np.zeros(16 // p, np.int64))
    return plan, {"call": lambda: plan(args[0]), "call_out": lambda: plan(args[0], out=args[1]),
                  "execute": lambda: plan.execute(args[0]),
                  "start": lambda: plan.start(*args), "test": plan.test, "wait": plan.wait,
                  "stats": plan.stats, "algorithm": lambda: plan.algorithm,
                  "empty_output": plan.empty_output, "enter": plan.__enter__}


@pytest.mark.parametrize("kind", ["plan", "batch", "bmmc"])
def test_freed_plan_every_method(comm, kind):
    p = comm.Get_size()
    if kind == "bmmc" and p & (p - 1):
        pytest.skip(f"a BMMC plan needs 2^k ranks, not {p}")
    plan, methods = make(kind, comm)
    plan.free()
    plan.free()  # again: nothing
    for name, call in methods.items():
        with pytest.raises(redist.Error) as e:
            call()
        assert e.value.name == "REDIST_ERR_STATE", name
        assert e.value.detail == "the plan was freed", (name, e.value.detail)
        assert str(e.value) == "REDIST_ERR_STATE: the plan was freed", (name, str(e.value))


def test_freed_inter_plan(comm):
    with two_groups(comm, 79) as (inter, is_source, src, dst):
        plan = redist.InterPlan(src, dst, np.float64, inter, is_source)
        plan.free()
        for call in (lambda: plan(None), plan.test, plan.wait, plan.stats,
                     lambda: plan.algorithm):
            with pytest.raises(redist.Error) as e:
                call()
            assert e.value.name == "REDIST_ERR_STATE" and e.value.detail == "the plan was freed"


def test_batch_start_test_wait(comm):
    rng = np.random.default_rng(5)
    rank, p = comm.Get_rank(), comm.Get_size()
    pairs = [(random_layout(rng, (11, 7), p), random_layout(rng, (11, 7), p), np.float64),
             (random_layout(rng, (20,), p), random_layout(rng, (20,), p), np.int8)]
    with redist.Batch(pairs, comm) as plan:
        arrays = [global_values(s, rank, dt) for s, _, dt in pairs]
        out = plan.empty_output()
        assert [b.shape for b in out] == [d.local_shape(rank) for _, d, _ in pairs]
        plan.start(arrays, out)
        while not plan.test():
            pass
        for (s, d, dt), b in zip(pairs, out):
            assert np.array_equal(b, global_values(d, rank, dt))
        out2 = plan.empty_output()
        plan.start(arrays, out2)
        assert plan.wait() is out2
        for (s, d, dt), b in zip(pairs, out2):
            assert np.array_equal(b, global_values(d, rank, dt))
        assert plan.stats()["steps"] >= 0 and plan.algorithm == "batch"


def test_batch_refused_array_named(comm):
    """An array of the wrong dtype in a started batch: REDIST_ERR_ARG on every rank at wait,
    this rank's detail naming the array."""
    p = comm.Get_size()
    pairs = [(spread((13, 5), p), spread((13, 5), p, order="F"), np.float64)] * 2
    with redist.Batch(pairs, comm) as plan:
        arrays = [s.zeros(np.float64, comm) for s, _, _ in pairs]
        arrays[1] = arrays[1].astype(np.float32)
        plan.start(arrays, plan.empty_output())
        with pytest.raises(redist.Error) as e:
            plan.wait()
        assert e.value.name == "REDIST_ERR_ARG"
        assert e.value.detail.startswith("src[1]: dtype float32"), e.value.detail
        plan([s.zeros(np.float64, comm) for s, _, _ in pairs])  # and it still runs


@pytest.mark.parametrize("dtype, options", [(np.int32, {"alpha": 2}),
                                            (np.float64, {"beta": 1j}),
                                            (np.int8, {"conjugate": 1}),
                                            (np.longdouble, {"alpha": -1})])
def test_explain_refuses_what_plan_refuses(comm, dtype, options):
    p = comm.Get_size()
    src, dst = spread((13, 5), p), spread((13, 5), p, order="F")
    with pytest.raises(redist.Error) as plan_error:
        redist.Plan(src, dst, dtype, comm, **options)
    with pytest.raises(redist.Error) as explain_error:
        redist.explain(src, dst, dtype, procs=p, **options)
    said = re.sub(r"^rank \d+: ", "", plan_error.value.detail)  # the plan names its rank
    assert (explain_error.value.name, explain_error.value.detail) == \
        (plan_error.value.name, said)
    redist.explain(src, dst, np.complex64, procs=p, **options)  # a type that scales: fine


def test_two_refused_arrays_each_named(comm):
    rank, p = comm.Get_rank(), comm.Get_size()
    src, dst = spread((13, 5), p), spread((13, 5), p, order="F")
    with redist.Plan(src, dst, np.float64, comm) as plan:
        a = src.zeros(np.int8, comm)
        b = np.zeros(dst.local_shape(rank), np.float64)  # C order: dst's is F
        with pytest.raises(redist.Error) as e:
            plan(a, out=b)
        assert e.value.name == "REDIST_ERR_ARG"
        d = e.value.detail
        assert d.startswith("src: dtype int8, the plan's is float64; dst: "), d
        assert "dst: not Fortran-contiguous" in d, d
        # one of the two alone, started: reported at wait, under its own name
        plan.start(src.zeros(np.float64, comm), b)
        with pytest.raises(redist.Error) as e:
            plan.wait()
        assert e.value.detail.startswith("dst: not Fortran-contiguous"), e.value.detail
        assert same_everywhere(comm, e.value.code)


def header_fields(struct):
    """The field names of a struct of include/redist.h, in order."""
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "redist.h")
    text = open(header, encoding="utf-8").read()
    body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (struct, struct), text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    names = []
    for decl in body.split(";"):
        words = decl.split()
        if words:  # "const int *permutation", "double alpha[2], beta[2]"
            first = re.split(r"[\s*]+", decl.split(",")[0].strip())[-1]
            names += [re.sub(r"\[.*", "", n.strip(" *")) for n in [first] + decl.split(",")[1:]]
    return names


@pytest.mark.parametrize("struct, mirror", [("redist_stats", "Stats"),
                                            ("redist_options", "Options")])
def test_structs_mirror_the_header(struct, mirror):
    """The ctypes mirrors have include/redist.h's fields, the last ones too: a shorter one
    lets C write past it (plan_stats) or read past it (options)."""
    fields = [name for name, _ in getattr(redist._lib, mirror)._fields_]
    assert fields == header_fields(struct)


def test_stats_threads_and_cores(comm):
    p = comm.Get_size()
    with redist.Plan(spread((13, 5), p), spread((13, 5), p, order="F"), np.float64, comm,
                     threads=1) as plan:
        st = plan.stats()
        assert st["threads"] == 1 and st["cores"] >= 1
