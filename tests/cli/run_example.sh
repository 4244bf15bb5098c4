#!/usr/bin/env bash
# Runs one example program (examples/, the example_* tests of CMakeLists.txt) on NP ranks:
#
#     run_example.sh NP PROGRAM [ARGS...]
#
# and passes if it exits 0 within EXAMPLE_TIMEOUT seconds (default 60) and prints a line
# "NAME: verified: ..." (written only when every element it received was right) and no
# "FAILED". MPIEXEC, MPIEXEC_NUMPROC_FLAG and MPIEXEC_PREFLAGS come from the environment, as
# for the tests/cli/test_*.sh scripts. Not named test_*: CMake runs it once per example and
# rank count rather than as a command-line test of its own.
set -u
: "${MPIEXEC:?}" "${MPIEXEC_NUMPROC_FLAG:?}"
if [[ $# -lt 2 ]]; then
    echo "usage: $0 NP PROGRAM [ARGS...]" >&2
    exit 2
fi
np=$1 prog=$2
shift 2
name=$(basename "$prog")
out=$(mktemp)
trap 'rm -f "$out"' EXIT

status=0
start=$(date +%s%N)
# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
timeout -k 5 "${EXAMPLE_TIMEOUT:-60}" "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$np" \
    ${MPIEXEC_PREFLAGS:-} "$prog" "$@" >"$out" 2>&1 || status=$?
ms=$((($(date +%s%N) - start) / 1000000))
cat "$out"

if [[ $status == 124 ]]; then
    echo "FAIL: $name on $np rank(s) timed out after ${EXAMPLE_TIMEOUT:-60} s"
    exit 1
elif [[ $status != 0 ]]; then
    echo "FAIL: $name on $np rank(s) exited $status"
    exit 1
elif ! grep -q "^$name: verified" "$out"; then
    echo "FAIL: $name on $np rank(s) did not print '$name: verified'"
    exit 1
elif grep -q "FAILED" "$out"; then
    echo "FAIL: $name on $np rank(s) printed FAILED"
    exit 1
fi
echo "ok: $name${*:+ $*} on $np rank(s), $ms ms"
