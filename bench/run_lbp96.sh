#!/usr/bin/env bash
# [LBP96]'s experiments on this machine: bench_lbp96 (time vs K for direct,
# direct-async, indirect, hybrid d=1, multiphase, alltoall-padded) for a small array
# (start-up bound) and a large one, over shared memory and over TCP. Writes CSVs and the
# printed tables to bench/results/.
#
#   bench/run_lbp96.sh            (NP=8 SMALL=8192 LARGE=4194304 by default)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
np=${NP:-8}
small=${SMALL:-8192}
large=${LARGE:-4194304}
[ -x "$build/bench_lbp96" ] || cmake --build "$build" --target bench_lbp96
# shellcheck disable=SC1091
source "$build/mpiexec.env"
# The launcher flags without the transport choice, which this script sets itself.
# shellcheck disable=SC2001 # a regular expression, which ${var//...} does not take
base=$(echo "$MPIEXEC_PREFLAGS" | sed -e 's/--mca btl [^ ]*//')
results=$root/bench/results
mkdir -p "$results"
status=0
for transport in vader tcp; do
    for n in "$small" "$large"; do
        reps="--n1 20 --n2 10"
        [ "$n" -gt 100000 ] && reps="--n1 7 --n2 2"
        name=lbp96_${transport}_n${n}
        echo "== $transport, N = $n"
        # shellcheck disable=SC2086
        "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$np" $base --mca btl "self,$transport" \
            "$build/bench_lbp96" --n "$n" $reps --csv "$results/$name.csv" |
            tee "$results/$name.txt" || status=1
    done
done
exit $status
