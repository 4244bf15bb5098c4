#!/usr/bin/env bash
# Runs bench_2d (every redist algorithm vs the memcpy floor and ScaLAPACK pdgemr2d, all
# cases) on 4 ranks, prints the tables and writes bench/results/bench_2d.csv (and the
# printed tables to bench/results/bench_2d.txt). `make bench` builds, then runs this.
#
#   bench/run.sh [extra bench_2d options, e.g. --case grid --size 4000 --reps 20]
#
# Environment: REDIST_BUILD_DIR or BUILD_DIR (default build), NP (default 4), REPS
# (default 10), BUDGET (seconds per method before repetitions are cut, never below 5;
# default 4); MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_PREFLAGS as `make bench` exports them
# (otherwise read from the build's mpiexec.env, or mpirun --oversubscribe [--allow-run-as-root]).
# About 1-2 minutes on a 2-core machine at the default size.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${REDIST_BUILD_DIR:-${BUILD_DIR:-$root/build}}
case $build in /*) ;; *) build=$root/$build ;; esac
np=${NP:-4}
reps=${REPS:-10}
budget=${BUDGET:-4}

exe=$build/bench/bench_2d
[ -x "$exe" ] || [ ! -x "$build/bench_2d" ] || exe=$build/bench_2d
if [ ! -x "$exe" ]; then
    if [ -f "$build/CMakeCache.txt" ]; then
        cmake --build "$build" --target bench_2d
    else
        echo "run.sh: $exe not found; build first: make build (or cmake -S . -B build && cmake --build build)" >&2
        exit 2
    fi
fi

if [ -z "${MPIEXEC:-}" ] && [ -f "$build/mpiexec.env" ]; then
    # shellcheck disable=SC1091
    source "$build/mpiexec.env"
fi
if [ -z "${MPIEXEC:-}" ]; then
    MPIEXEC=mpirun
    MPIEXEC_PREFLAGS=--oversubscribe
    if [ "$(id -u)" = 0 ]; then
        MPIEXEC_PREFLAGS+=" --allow-run-as-root"
    fi
fi
read -r -a preflags <<<"${MPIEXEC_PREFLAGS:-}"
read -r -a postflags <<<"${MPIEXEC_POSTFLAGS:-}"
if [ "$(id -u)" = 0 ] && "$MPIEXEC" --version 2>&1 | grep -q 'Open MPI\|OpenRTE'; then
    case " ${preflags[*]} " in *" --allow-run-as-root "*) ;; *) preflags+=(--allow-run-as-root) ;; esac
fi

results=$root/bench/results
mkdir -p "$results"
csv=$results/bench_2d.csv
txt=$results/bench_2d.txt

cmd=("$MPIEXEC" "${MPIEXEC_NUMPROC_FLAG:--np}" "$np" "${preflags[@]}" "$exe" "${postflags[@]}"
     --reps "$reps" --budget "$budget" --csv "$csv" "$@")
echo "run.sh: ${cmd[*]}"
status=0
"${cmd[@]}" | tee "$txt" || status=$?
echo "run.sh: CSV in $csv, tables in $txt"

# Plan cost against the number of elements (serial, no MPI launch).
plan_exe=$build/bench_plan
[ -x "$plan_exe" ] || cmake --build "$build" --target bench_plan
echo "run.sh: $plan_exe"
"$plan_exe" | tee "$results/bench_plan.txt" || status=$?
exit "$status"
