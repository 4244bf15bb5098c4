#!/usr/bin/env bash
# [TCR96]'s comparisons on this machine (bench_tcr96): synchronous vs asynchronous
# receive for cyclic(4) -> cyclic(2) (KY_TO_Y) and cyclic(2) -> cyclic(4) (X_TO_KX) of 1M ints
# on 2, 4 and 8 ranks and for 64K..4M ints on 8 ranks (Figs. 3-7); general, GCD and LCM for
# cyclic(15) -> cyclic(10) and cyclic(11) -> cyclic(3) (Figs. 9-11); all next to direct-async.
# Writes bench/results/tcr96.csv and .txt.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
[ -x "$build/bench_tcr96" ] || cmake --build "$build" --target bench_tcr96
# shellcheck disable=SC1091
source "$build/mpiexec.env"
results=$root/bench/results
mkdir -p "$results"
csv=$results/tcr96.csv
echo "P,N,x,y,method,tmin_s,tmed_s" >"$csv"
run() { # np, then bench options
    local np=$1
    shift
    # shellcheck disable=SC2086
    "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$np" $MPIEXEC_PREFLAGS "$build/bench_tcr96" "$@" --csv "$csv"
}
{
    for xy in "4 2" "2 4" "15 10" "11 3"; do
        # shellcheck disable=SC2086 # "x y" split into the two arguments
        set -- $xy
        for np in 2 4 8; do run "$np" --x "$1" --y "$2" --n 1048576; done
    done
    for n in 65536 262144 4194304; do
        run 8 --x 4 --y 2 --n "$n"
        run 8 --x 11 --y 3 --n "$n"
    done
} | tee "$results/tcr96.txt"
