#!/usr/bin/env bash
# Transposes against their peers (docs/performance.md, "Transposes"): bench_transpose
# (redist_pdtran vs PBLAS pdtran_; 3-D pencils and slabs: a redist plan vs MPI_Alltoallw with
# derived datatypes vs FFTW-MPI), then, when a COSTA driver is given, COSTA's transform on
# the same 2-D cases, alternating with bench_transpose's redist runs so that both see the
# same machine. Output goes to stdout and bench/results/transpose.txt.
#
#   bench/run_transpose.sh [--n3 512]
#
# Environment: BUILD_DIR (default build), NP (default 4), REPS (default 7), N (default 4096),
# COSTA_BENCH: the bench_costa binary (built as docs/performance.md says; skipped if unset or
# missing); MPIEXEC and MPIEXEC_PREFLAGS as `make bench` exports them (else from the build's
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
{
    # shellcheck disable=SC2086
    $MPIEXEC -n "$np" $MPIEXEC_PREFLAGS "$build/bench_transpose" --reps "$reps" --n "$n" "$@"
    costa=${COSTA_BENCH:-}
    if [ -n "$costa" ] && [ -x "$costa" ]; then
        echo
        echo "COSTA (costa::transform, layouts prepared once, OMP_NUM_THREADS=1), median of $reps (ms)"
        printf '%6s %9s %11s %10s\n' n blocks alpha,beta costa
        for ab in "1.0 0.0" "2.0 0.5"; do
            for size in "$n" "$((n - 96))"; do
                for pair in "32 128" "128 32" "64 64"; do
                    read -r a b <<<"$pair"
                    read -r alpha beta <<<"$ab"
                    # shellcheck disable=SC2086
                    line=$($MPIEXEC -n "$np" $MPIEXEC_PREFLAGS env OMP_NUM_THREADS=1 "$costa" \
                        "$size" "$size" "$a" "$a" 2 2 "$b" "$b" 2 2 T "$alpha" "$beta" "$reps" |
                        grep -o 'median_ms=[0-9.]*' | cut -d= -f2)
                    printf '%6s %5s:%-3s %5s,%-5s %10s\n' "$size" "$a" "$b" "$alpha" "$beta" "$line"
                done
            done
        done
    fi
} | tee "$out"
