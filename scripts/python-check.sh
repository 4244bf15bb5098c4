#!/usr/bin/env bash
# make python-check (part of make check): the Python package's tests (python/tests) under
# mpiexec at 1 to 4 ranks, from the build tree without installing (REDIST_LIBRARY =
# BUILD_DIR/libredist.so, PYTHONPATH = python/), with Debian's interpreter: /usr/bin/python3
# has Debian's mpi4py and NumPy, while the python3 first on PATH may be another
# (REDIST_PYTHON overrides). Debian's mpi4py is built for Open MPI: a build for MPICH skips
# the tests, saying why. Device arrays run on the emulated device (REDIST_DEVICE_BACKEND).
set -uo pipefail
build=$(cd "${1:?usage: python-check.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC1091
source "$build/mpiexec.env"
py=${REDIST_PYTHON:-/usr/bin/python3}
if [[ "${REDIST_MPI:-openmpi}" != openmpi ]]; then
    echo "python-check: skipped: Debian's mpi4py is built for Open MPI, this build ($build) for $REDIST_MPI"
    exit 0
fi
if ! "$py" -c 'import mpi4py, numpy, pytest' 2>/dev/null; then
    echo "python-check: FAILED: $py lacks mpi4py, numpy or pytest (bash scripts/install-deps.sh installs Debian's)"
    exit 1
fi
export REDIST_LIBRARY="$build/libredist.so" PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_WAIT_POLICY=passive
# device arrays (tests/test_device.py) on the emulated device unless told otherwise (a GPU
# node: REDIST_DEVICE_BACKEND=cuda)
export REDIST_DEVICE_BACKEND=${REDIST_DEVICE_BACKEND:-emulated}
failed=0
for np in 1 2 3 4; do
    # shellcheck disable=SC2086 # the flags are a list of words
    out=$(cd "$root/python" && timeout 600 "$MPIEXEC" $MPIEXEC_NUMPROC_FLAG "$np" $MPIEXEC_PREFLAGS \
        "$py" -m pytest -q -p no:cacheprovider --color=no tests $MPIEXEC_POSTFLAGS 2>&1)
    rc=$?
    if [[ $rc -ne 0 ]]; then
        failed=1
        tail -30 <<<"$out"
        echo "python-check: FAILED on $np rank(s) (exit $rc)"
    else
        echo "python-check: $np rank(s): $(grep -E '^[0-9]+ passed' <<<"$out" | sort -u | tr '\n' ' ')"
    fi
done
# The install a user makes: a virtual environment over Debian's modules, pip without network.
# From a copy of python/: setuptools writes build/ and *.egg-info/ into the tree it installs.
venv="$build/python-venv" src="$build/python-src"
rm -rf "$venv" "$src"
if cp -r "$root/python" "$src" && "$py" -m venv --system-site-packages "$venv" &&
    "$venv/bin/pip" install -q --no-build-isolation --no-index "$src" &&
    (cd / && "$venv/bin/python" -c 'import redist, sys; sys.exit(0 if redist.algorithms()[0] == "auto" else 1)'); then
    echo "python-check: pip install ./python into a venv: imports, finds $REDIST_LIBRARY"
else
    failed=1
    echo "python-check: FAILED: pip install ./python into a venv"
fi
rm -rf "$venv" "$src"
[[ $failed -eq 0 ]] && echo "python-check: PASSED"
exit $failed
