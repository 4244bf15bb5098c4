#!/usr/bin/env bash
# The cost model on this machine (docs/performance.md, "The cost model: calibrate and bench"):
# for each MPI transport, `redist calibrate` on CAL_RANKS ranks into its own machine file,
# then `redist bench` on BENCH_RANKS ranks with that file: the 90-case grid, auto's regret,
# predicted against measured, CSV and SVG plots. Results in bench/results/model-<transport>/
# (calibrate.txt, machine, bench.txt, bench.csv, bench.dat, bench.gp, *.svg).
#
#   bench/run_model.sh               # shared memory (Open MPI's vader) and TCP (btl tcp,self)
#   TRANSPORTS=shm bench/run_model.sh
#
# Environment: BUILD_DIR (default build), CAL_RANKS (2: one per core), BENCH_RANKS (8),
# TRIALS (7), TRANSPORTS ("shm tcp").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cal_ranks=${CAL_RANKS:-2}
bench_ranks=${BENCH_RANKS:-8}
trials=${TRIALS:-7}
[ -x "$build/redist" ] || cmake --build "$build" --target redist_tool
# shellcheck disable=SC1091
source "$build/mpiexec.env"

for transport in ${TRANSPORTS:-shm tcp}; do
    flags=$MPIEXEC_PREFLAGS
    if [ "$transport" = tcp ]; then
        # shellcheck disable=SC2001 # a regular expression, not a fixed string
        flags=$(sed -e 's/--mca btl [^ ]*/--mca btl tcp,self/' <<<"$MPIEXEC_PREFLAGS")
        grep -q -- '--mca btl tcp,self' <<<"$flags" || flags="$flags --mca btl tcp,self"
    fi
    out=$root/bench/results/model-$transport
    mkdir -p "$out"
    export REDIST_MACHINE_FILE=$out/machine
    echo "== $transport: calibrate on $cal_ranks ranks, bench on $bench_ranks ($flags)"
    # shellcheck disable=SC2086
    "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$cal_ranks" $flags -x REDIST_MACHINE_FILE \
        "$build/redist" calibrate | tee "$out/calibrate.txt"
    # shellcheck disable=SC2086
    "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$bench_ranks" $flags -x REDIST_MACHINE_FILE \
        "$build/redist" bench --trials "$trials" --csv "$out/bench.csv" --plots "$out" |
        tee "$out/bench.txt"
done
