"""Arguments are checked before they reach C: a length that does not match the array's
dimensions or the grid (which C would read past) is a ValueError, an integer beyond its C
type (which ctypes would wrap) an OverflowError, an unknown option value a ValueError listing
the accepted ones; each names the argument. Local calls here (layouts, explain) and plans
(collective: every rank passes the same bad argument)."""
import numpy as np
import pytest
from conftest import everywhere, refused

import redist

BC, GB = redist.BlockCyclic, redist.GenBlock
CASES = [  # (what, call, exception, words the message must hold)
    ("ranks short", lambda: BC((8, 6), (2, 2), (2, 2), ranks=[0, 1]), ValueError,
     ["ranks", "2", "4"]),
    ("ranks long", lambda: BC((8,), (2,), (2,), ranks=[0, 1, 2]), ValueError, ["ranks"]),
    ("ranks short 1-D", lambda: BC((8,), (2,), (2,), ranks=[1]), ValueError, ["ranks"]),
    ("blocks", lambda: BC((8, 6), (2,), (1, 1)), ValueError, ["blocks"]),
    ("first", lambda: BC((8, 6), (2, 2), (1, 1), first=(0,)), ValueError, ["first"]),
    ("grid", lambda: BC((8,), (2,), (1, 1)), ValueError, ["grid"]),
    ("shape overflow", lambda: BC((2 ** 64 + 8,), (2,), (1,)), OverflowError, ["shape"]),
    ("blocks overflow", lambda: BC((8,), (2 ** 63,), (1,)), OverflowError, ["blocks"]),
    ("grid overflow", lambda: BC((8,), (2,), (2 ** 32 + 1,)), OverflowError, ["grid"]),
    ("first overflow", lambda: BC((8,), (2,), (1,), first=(2 ** 32,)), OverflowError,
     ["first"]),
    ("ranks overflow", lambda: BC((8,), (2,), (1,), ranks=(2 ** 32,)), OverflowError,
     ["ranks"]),
    ("shape not integers", lambda: BC((8.5,), (2,), (1,)), TypeError, ["shape"]),
    ("order", lambda: BC((8,), (2,), (1,), order="X"), ValueError, ["order", "'C'", "'F'"]),
    ("sizes short", lambda: GB((10,), [[10]], (2,)), ValueError, ["sizes[0]", "grid"]),
    ("sizes long", lambda: GB((10,), [[4, 6]], (3,)), ValueError, ["sizes[0]"]),
    ("gen grid", lambda: GB((10,), [[4, 6]], (2, 1)), ValueError, ["grid"]),
    ("gen sizes count", lambda: GB((10, 2), [[4, 6]], (2, 1)), ValueError, ["sizes"]),
    ("gen ranks", lambda: GB((10,), [[4, 6]], (2,), ranks=[1]), ValueError, ["ranks"]),
    ("gen order", lambda: GB((10,), [[4, 6]], (2,), order="X"), ValueError,
     ["order", "'C'", "'F'"]),
    ("gen sizes overflow", lambda: GB((10,), [[4, 2 ** 64 + 6]], (2,)), OverflowError,
     ["sizes[0][1]"]),
    ("gen first", lambda: GB((10,), [[4, 6]], (2,), first=(0, 0)), ValueError, ["first"]),
    ("local_shape rank", lambda: BC((8,), (2,), (2,)).local_shape(2 ** 32), OverflowError,
     ["rank"]),
    ("coords rank", lambda: BC((8,), (2,), (2,)).coords(2 ** 32 + 1), OverflowError, ["rank"]),
    ("device shape", lambda: redist.DeviceArray((2 ** 64,), np.float64), OverflowError,
     ["shape"]),
    ("device order", lambda: redist.DeviceArray((2,), np.float64, order="X"), ValueError,
     ["order"]),
    ("bmmc n", lambda: redist.bmmc.bit_reversal(2 ** 32 + 4), OverflowError, ["n"]),
    ("shuffle k", lambda: redist.bmmc.shuffle(4, 2 ** 32 + 1), OverflowError, ["k"]),
]


@pytest.mark.parametrize("case", range(len(CASES)), ids=[c[0] for c in CASES])
def test_layout_and_local_arguments(case):
    what, call, exc, words = CASES[case]
    refused(call, exc, words, what)


def pair():
    return BC((8, 6), (2, 2), (1, 1)), BC((6, 8), (3, 3), (1, 1))


EXPLAIN = [  # (options, exception, words)
    ({"procs": 2 ** 32 + 2}, OverflowError, ["procs"]),
    ({"threads": 2 ** 32 + 3}, OverflowError, ["threads"]),
    ({"memory": 2 ** 32 + 1}, OverflowError, ["memory"]),
    ({"memory": "gpu"}, ValueError, ["memory", "'host'", "'cuda'", "'auto'"]),
    ({"transport": "mpi"}, ValueError, ["transport", "'auto'", "'pack'", "'datatype'"]),
    ({"permutation": (1,)}, ValueError, ["permutation", "2"]),
    ({"permutation": (1, 0, 2)}, ValueError, ["permutation"]),
    ({"permutation": (1, 2 ** 32)}, OverflowError, ["permutation"]),
    ({"max_buffer_bytes": 2 ** 63}, OverflowError, ["max_buffer_bytes"]),
    ({"stream": -1}, OverflowError, ["stream"]),
    ({"hybrid_degree": 2 ** 31}, OverflowError, ["hybrid_degree"]),
    ({"algorithm": 3}, TypeError, ["algorithm"]),
    ({"alpha": "two"}, TypeError, ["alpha"]),
]


@pytest.mark.parametrize("case", range(len(EXPLAIN)), ids=[str(c[0]) for c in EXPLAIN])
def test_explain_arguments(case):
    options, exc, words = EXPLAIN[case]
    src, dst = pair()
    opts = {"permutation": (1, 0), **options}
    refused(lambda: redist.explain(src, dst, np.float64, **opts), exc, words, options)


def test_explain_takes_the_same_good_values():
    src, dst = pair()
    e = redist.explain(src, dst, np.float64, procs=2, permutation=(1, 0), memory="host",
                       transport="pack", threads=1, stream=0)
    assert e["procs"] == 2


@pytest.mark.parametrize("case", [1, 2, 3, 4, 5], ids=[str(EXPLAIN[c][0]) for c in range(1, 6)])
def test_plan_arguments(comm, case):
    """The same checks in Plan (every rank alike: agreed, no rank waits)."""
    options, exc, _ = EXPLAIN[case]
    p = comm.Get_size()
    src, dst = BC((8, 6), (2, 2), (p, 1)), BC((6, 8), (3, 3), (1, p))
    opts = {"permutation": (1, 0), **options}
    everywhere(comm, lambda: redist.Plan(src, dst, np.float64, comm, **opts).free(),
               exc.__name__)
