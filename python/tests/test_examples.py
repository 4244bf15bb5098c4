"""The examples (python/examples), run in process on the test's ranks."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))

import fft_pencils  # noqa: E402
import reblock  # noqa: E402


def test_fft_pencils(comm):
    assert fft_pencils.main(comm, (12, 10, 9))
    assert fft_pencils.main(comm, (5, 7, 3))  # ranks that hold nothing at 4 ranks


def test_reblock(comm):
    assert reblock.main(comm, 300)
