#!/usr/bin/env bash
# Transposes against their peers (docs/performance.md, "Transposes"): bench_transpose
# (redist_pdtran vs PBLAS pdtran_; 3-D pencils and slabs: a redist plan vs MPI_Alltoallw with
# derived datatypes vs FFTW-MPI). Output goes to stdout and bench/results/transpose.txt.
#
#   bench/run_transpose.sh [--n3 512]
#
# Environment: BUILD_DIR (default build), NP (default 4), REPS (default 7), N (default 4096),
# MPIEXEC and MPIEXEC_PREFLAGS as `make bench` exports them (else from the build's
# mpiexec.env).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
np=${NP:-4} reps=${REPS:-7} n=${N:-4096}
if [ -z "${MPIEXEC:-}" ] && [ -f "$build/mpiexec.env" ]; then
    # shellcheck disable=SC1091
    source "$build/mpiexec.env"
fi
: "${MPIEXEC:?set MPIEXEC or build first}"
mkdir -p "$root/bench/results"
out=$root/bench/results/transpose.txt
# shellcheck disable=SC2086
$MPIEXEC -n "$np" $MPIEXEC_PREFLAGS "$build/bench_transpose" --reps "$reps" --n "$n" "$@" |
    tee "$out"
