"""The examples (python/examples), run in process on the test's ranks."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))

import fft3d_boxes  # noqa: E402
import fft_pencils  # noqa: E402
import reblock  # noqa: E402


def test_fft_pencils(comm):
    assert fft_pencils.main(comm, (12, 10, 9))
    assert fft_pencils.main(comm, (5, 7, 3))  # ranks that hold nothing at 4 ranks


def test_reblock(comm):
    assert reblock.main(comm, 300)


def test_fft3d_boxes(comm):
    for decomposition in ("pencils", "slabs"):
        assert fft3d_boxes.main(comm, (12, 10, 9), decomposition)
        # a dimension of 1 or 2: empty boxes from 2 or 3 ranks on
        assert fft3d_boxes.main(comm, (1, 6, 2), decomposition)
