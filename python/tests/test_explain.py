"""redist.explain (redist_explain in C): the dict is `redist explain --json`'s object less
the tool's own keys, its plan is the one Plan makes, and it refuses what Plan refuses."""
import json
import os
import subprocess

import numpy as np
import pytest

import redist


def tool():
    """The tool of the build tree whose library the package loaded (make python-check)."""
    path = os.path.join(os.path.dirname(redist.library_path), "redist")
    assert os.access(path, os.X_OK), f"no redist tool next to {redist.library_path}"
    return path


CASES = [  # (src, dst, procs, dtype, options, the tool's arguments)
    (lambda: redist.BlockCyclic((10, 100), (3, 7), (2, 3)),
     lambda: redist.BlockCyclic((10, 100), (10, 10), (3, 2), order="F"),
     None, np.float64, {},
     ["--from", "n=10x100,block=3x7,grid=2x3", "--to", "n=10x100,block=10x10,grid=3x2,order=col"]),
    (lambda: redist.BlockCyclic((1000,), (3,), (7,)),
     lambda: redist.BlockCyclic((1000,), (12,), (7,), first=(2,)),
     7, np.int8, {"algorithm": "indirect"},
     ["--from", "n=1000,block=3", "--to", "n=1000,block=12,first=2", "--procs", "7",
      "--type", "char", "--algorithm", "indirect"]),
    (lambda: redist.BlockCyclic((6, 4), (1, 1), (3, 1)),
     lambda: redist.BlockCyclic((4, 6), (1, 1), (1, 3)),
     3, np.float64, {"permutation": (1, 0), "max_buffer_bytes": 16},
     ["--from", "n=6x4,grid=3x1", "--to", "n=4x6,grid=1x3", "--permute", "1,0",
      "--max-buffer", "16"]),
    (lambda: redist.BlockCyclic((64,), (1,), (4,)),
     lambda: redist.BlockCyclic((64,), (4,), (4,)),
     4, np.float64, {"memory": "cuda", "threads": 2},
     ["--from", "n=64", "--to", "n=64,block=4", "--procs", "4", "--memory", "cuda",
      "--threads", "2"]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_tools_object(case):
    src, dst, procs, dtype, options, args = CASES[case]
    got = redist.explain(src(), dst(), dtype, procs=procs, **options)
    # run as a program of its own, not as this MPI job's rank (it prints on rank 0 only)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_COMM_WORLD", "PMIX_RANK", "PMI_RANK"))}
    out = subprocess.run([tool(), "explain", *args, "--json"], capture_output=True, text=True,
                         check=True, env={**env, "REDIST_NUM_THREADS": ""}).stdout
    want = json.loads(out)
    for key in ("from", "to", "type"):  # the tool's own
        want.pop(key)
    assert got == want


def test_the_plan_it_explains(comm):
    p = comm.Get_size()
    src = redist.BlockCyclic((40, 30), (3, 4), (p, 1))
    dst = redist.BlockCyclic((40, 30), (5, 5), (1, p), order="F")
    e = redist.explain(src, dst, np.complex128, procs=p)
    assert e["procs"] == p and e["element_bytes"] == 16 and e["elements"] == 1200
    assert e["array_bytes"] == 1200 * 16 and e["requested"] == "auto"
    with redist.Plan(src, dst, np.complex128, comm) as plan:
        assert plan.algorithm == e["algorithm"]
        st = plan.stats()
        assert (st["steps"], st["max_messages_per_rank"], st["max_bytes_per_rank"]) == \
            (e["steps"], e["max_messages_per_rank"], e["max_bytes_per_rank"])
    rows = {r["name"]: r for r in e["algorithms"]}
    assert set(rows) == set(redist.algorithms())
    assert [n for n, r in rows.items() if r["applicable"] and r["chosen"]] == [e["algorithm"]]
    for name, r in rows.items():
        assert r["applicable"] or r["why_not"] or r["error"] != "REDIST_ERR_NOT_APPLICABLE"


def test_default_procs_is_the_largest_rank_plus_one():
    src = redist.BlockCyclic((100,), (5,), (3,), ranks=(4, 0, 9))
    dst = redist.GenBlock((100,), [(50, 50)], (2,), ranks=(2, 1))
    assert redist.explain(src, dst, np.float32)["procs"] == 10
    assert redist.explain(dst, dst, np.float32)["procs"] == 3


def test_refusals():
    src = redist.BlockCyclic((24,), (5,), (4,))
    dst = redist.BlockCyclic((24,), (1,), (4,))
    with pytest.raises(redist.Error) as e:
        redist.explain(src, dst, np.float64, algorithm="bmmc")
    assert e.value.name == "REDIST_ERR_NOT_APPLICABLE" and "needs" in e.value.detail
    with pytest.raises(redist.Error) as e:
        redist.explain(src, dst, np.float64, algorithm="nope")
    assert e.value.name == "REDIST_ERR_UNKNOWN_ALGORITHM"
    with pytest.raises(redist.Error) as e:  # the layouts use ranks 0 .. 3
        redist.explain(src, dst, np.float64, procs=3)
    assert e.value.name == "REDIST_ERR_ARG" and "rank 3" in e.value.detail
    with pytest.raises(redist.Error) as e:
        redist.explain(src, dst, np.float64, memory=9)
    assert e.value.name == "REDIST_ERR_ARG"
    with pytest.raises(redist.Error) as e:
        redist.explain(src, redist.BlockCyclic((25,), (1,), (4,)), np.float64)
    assert e.value.name == "REDIST_ERR_ARG"
    with pytest.raises(TypeError):
        redist.explain(src, dst, np.dtype("U4"))
    with pytest.raises(TypeError):
        redist.explain(src, dst, np.float64, no_such_option=1)
