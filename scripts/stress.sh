#!/usr/bin/env bash
# Long randomized runs that `make check` keeps short: the random-case tests with many more
# cases and a new seed per run, at every rank count, and test_stress with 10^4 plans; then
# every MPI test program once at rank counts beyond the cores (oversubscribed: a test must
# hold at any rank count, not only at the 1-8 that make check and make check-long run),
# the random-case ones with the run's seed. Each run is bounded by STRESS_SECONDS (per program
# and rank count); a failure prints the command that reproduces it (same seed).
#
#   STRESS_CASES   random cases per test and rank count (default 2000; CI's short run: 300)
#   STRESS_NPROCS  rank counts (default "1 2 3 4 5 7 8")
#   STRESS_WIDE_NPROCS  rank counts at which every program of tests/mpi runs once with its
#                  own defaults (default "16"; empty: none)
#   STRESS_WIDE_SKIP  programs left out of that pass (default none; CI's short run leaves out
#                  test_lbp96 and test_scalapack_leak, 250 of its 610 s at 16 ranks, which
#                  run at 1-8 ranks in make check and check-long)
#   STRESS_PLANS   plans created and freed by test_stress (default 10000)
#   STRESS_SEED    the seed (default: from the clock, printed)
#   STRESS_SECONDS time limit of one run (default 900)
#   STRESS_THREADS thread counts at which every program of tests/mpi runs again with threaded
#                  plans (REDIST_NUM_THREADS, every move split: REDIST_THREAD_MIN_BYTES=1),
#                  default "2 3"; empty: none
#   STRESS_THREAD_NPROCS  their rank counts (default "1 3 4")
#   STRESS_DEVICE  memory kinds with which every program that has a `/* device: ... */` line
#                  runs again with its arrays in the emulated device's memory
#                  (REDIST_TEST_MEMORY, REDIST_DEVICE_BACKEND=emulated, 4 KiB pieces), default
#                  "cuda auto"; empty: none
#   STRESS_DEVICE_CASES   random cases of those runs (default 100)
#   STRESS_DEVICE_NPROCS  their rank counts (default: STRESS_NPROCS)
set -uo pipefail
build=${1:?usage: stress.sh BUILD_DIR}
# shellcheck disable=SC1091
source "$build/mpiexec.env"
cases=${STRESS_CASES:-2000}
nprocs=${STRESS_NPROCS:-1 2 3 4 5 7 8}
wide=${STRESS_WIDE_NPROCS-16}
wide_skip=${STRESS_WIDE_SKIP:-}
plans=${STRESS_PLANS:-10000}
seed=${STRESS_SEED:-$(date +%s)}
limit=${STRESS_SECONDS:-900}
threads=${STRESS_THREADS-2 3}
thread_nprocs=${STRESS_THREAD_NPROCS:-1 3 4}
device=${STRESS_DEVICE-cuda auto}
device_cases=${STRESS_DEVICE_CASES:-100}
device_nprocs=${STRESS_DEVICE_NPROCS:-$nprocs}
echo "stress: seed $seed, $cases cases per test, ranks $nprocs, $plans plans; every test at ${wide:-no more} ranks, and with ${threads:-no} threads at $thread_nprocs ranks; device memory ${device:-no} at $device_nprocs ranks"
failed=0
run() { # run NP PROGRAM ARGS...: one bounded run; counts and reports a failure
    local np=$1 prog=$2
    shift 2
    local start out rc
    start=$(date +%s)
    # shellcheck disable=SC2086
    out=$(timeout "$limit" "$MPIEXEC" $MPIEXEC_NUMPROC_FLAG "$np" $MPIEXEC_PREFLAGS \
        "$build/tests/mpi/$prog" "$@" $MPIEXEC_POSTFLAGS 2>&1)
    rc=$?
    if [[ $rc -ne 0 ]] || ! grep -q "No Errors" <<<"$out"; then
        failed=$((failed + 1))
        grep -v '^\[vm' <<<"$out" | head -20
        echo "stress: FAILED (exit $rc): $MPIEXEC $MPIEXEC_NUMPROC_FLAG $np $MPIEXEC_PREFLAGS $build/tests/mpi/$prog $*"
    else
        echo "stress: ok $prog${*:+ $*} on $np ranks ($(($(date +%s) - start)) s)"
    fi
}
for np in $nprocs; do
    for prog in test_window test_gen_block test_layout_kinds test_batch; do
        run "$np" "$prog" --seed "$seed" --cases "$cases"
    done
    run "$np" test_stress --plans "$plans"
done
# The rank counts up to 8 that a test's `/* nprocs: ... */` line allows (test_bmmc: powers of
# two; test_inter: two or more), as make check's CMake reads it; every count when it has none.
sources=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/mpi" && pwd)
allowed() { # allowed NP PROGRAM
    local marker
    marker=$(grep -m1 -oE '^[[:space:]]*/\*[[:space:]]*nprocs:[ 0-9]*\*/' "$sources/$2.c" 2>/dev/null)
    [[ -z $marker || $1 -gt 8 ]] && return 0
    [[ " $(tr -cd ' 0-9' <<<"${marker#*nprocs:}") " == *" $1 "* ]]
}
# Every MPI test program at the given rank counts; those that draw random cases take the seed.
every_program() {
    for np in "$@"; do
        for path in "$build"/tests/mpi/test_*; do
            [[ -f "$path" && -x "$path" ]] || continue
            prog=${path##*/}
            if ! allowed "$np" "$prog"; then
                echo "stress: not $prog on $np ranks (its nprocs line does not list $np)"
                continue
            fi
            if [[ $np -gt 8 && " $wide_skip " == *" $prog "* ]]; then
                echo "stress: not $prog on $np ranks (STRESS_WIDE_SKIP)"
                continue
            fi
            case $prog in
            test_window | test_gen_block | test_layout_kinds | test_batch | test_scalapack | test_random_layouts)
                run "$np" "$prog" --seed "$seed" ;;
            *) run "$np" "$prog" ;;
            esac
        done
    done
}
# shellcheck disable=SC2086
every_program $wide
# The programs with a `/* nodes: */` line at the wide count on virtual nodes of 6 ranks
# (REDIST_RANKS_PER_NODE: node-aware and the model's network), 8 cases each: 16 ranks as nodes
# of 6, 6 and 4, whose pairs have 3 or 2 lanes.
if [[ -n $wide ]]; then
    for path in "$sources"/test_*.c; do
        grep -qE '^[[:space:]]*/\*[[:space:]]*nodes:[ 0-9:]*\*/' "$path" || continue
        prog=$(basename "$path" .c)
        allowed "$wide" "$prog" || continue
        REDIST_RANKS_PER_NODE=6 run "$wide" "$prog" --seed "$seed" --cases 8
    done
fi
# Threaded plans: more threads than cores here, so the OpenMP threads must not spin.
for t in $threads; do
    echo "stress: every test with REDIST_NUM_THREADS=$t"
    # shellcheck disable=SC2086
    REDIST_NUM_THREADS=$t REDIST_THREAD_MIN_BYTES=1 OMP_WAIT_POLICY=passive \
        every_program $thread_nprocs
done
# Device memory (emulated): the programs whose device line CMake reads, at every rank count
# their nprocs line allows; those that draw random cases take the seed and the case count.
device_programs() {
    local path
    for path in "$sources"/test_*.c; do
        grep -qE '^[[:space:]]*/\*[[:space:]]*device:[ 0-9]*\*/' "$path" && basename "$path" .c
    done
}
for mem in $device; do
    echo "stress: the device tests with REDIST_TEST_MEMORY=$mem (emulated device)"
    for np in $device_nprocs; do
        for prog in $(device_programs); do
            allowed "$np" "$prog" || continue
            case $prog in
            test_window | test_gen_block | test_layout_kinds | test_batch | test_random_layouts)
                set -- --seed "$seed" --cases "$device_cases" ;;
            *) set -- ;;
            esac
            REDIST_DEVICE_BACKEND=emulated REDIST_TEST_MEMORY=$mem REDIST_DEVICE_STAGE_BYTES=4096 \
                run "$np" "$prog" "$@"
        done
    done
done
if [[ $failed -ne 0 ]]; then
    echo "stress: $failed runs FAILED (seed $seed)"
    exit 1
fi
echo "stress: PASSED (seed $seed)"
