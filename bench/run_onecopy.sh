#!/usr/bin/env bash
# One copy on a node (redist_alloc's arrays) on the 16-core node, run by hand where one is
# lent: the correctness runs at 16 ranks bound to cores and the benchmark figures of
# docs/dev/one-copy.md.
# From a copy of the repository holding a build (or tests/gpu/slim.sh's copy of it) and
# .node/mpi-runtime.tgz (the node has no MPI of its own; docs/dev/device.md, "The CUDA backend",
# and tests/gpu/run.sh say how it is carried):
#
#     [BUILD=dir] [DEADLINE=sec] [N=8000] [NP=16] [PARTS=tests,bench,runs] bash bench/run_onecopy.sh
#
# (NP: the ranks of the 16-rank runs; a smaller N and NP try the script on another machine.)
#
# Correctness (every element checked): test_onecopy (its PMPI count: no data message on the
# node), test_shared_alloc, test_random_layouts with every array node-shared and with a mix,
# at 16 ranks, the mix also on nodes of 4 ranks (REDIST_RANKS_PER_NODE) so that one copy and
# MPI mix (test_onecopy splits its own nodes in its SPLIT case).
# Benchmarks: bench_threads at 16 ranks x 1 thread, N x N doubles, with malloc'd and with
# node-shared arrays, against the memcpy floor, pdgemr2d and one MPI_Alltoallw; bench_2d at 4
# ranks (the 2-core machine's cases on real cores); bench_threads at 2 ranks x 8 threads.
# bench_runs: the same re-blocks' access pattern alone (no MPI), NP threads, pull and push.
# PARTS: which of tests, bench and runs run (default: all). Exit 1 if a run failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
B=$(cd "${BUILD:-build}" && pwd) || exit 1
deadline=${DEADLINE:-0} n=${N:-8000} np=${NP:-16} parts=,${PARTS:-tests,bench,runs},
tar -xzkf .node/mpi-runtime.tgz -C / 2>/dev/null
ldconfig
export LD_LIBRARY_PATH="$B:/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MR=(/usr/bin/orterun -x LD_LIBRARY_PATH --mca mtl '^ofi' --mca pml ob1 --mca btl 'self,vader')
lscpu | grep -E '^(Model name|CPU\(s\)|L3)' || true
failed=0
# go LIMIT NP [VAR=VALUE...] -- PROGRAM ARGS...: one run, bounded by LIMIT and the deadline
go() {
    local limit=$1 np=$2 env=()
    shift 2
    while [[ $1 != -- ]]; do env+=(-x "$1"); shift; done
    shift
    if [[ $deadline -gt 0 ]]; then
        local left=$((deadline - SECONDS))
        [[ $left -lt 15 ]] && { echo "NOT RUN (deadline): $*"; failed=1; return; }
        [[ $left -lt $limit ]] && limit=$left
    fi
    local bind=(--bind-to core "${map[@]}")
    [[ $np -gt $(nproc) ]] && bind=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
    local t0=$SECONDS
    echo "== np=$np ${env[*]} $*"
    timeout -k 5 "$limit" "${MR[@]}" "${bind[@]}" -n "$np" "${env[@]}" "$@" 2>&1 | tail -n 40
    local rc=${PIPESTATUS[0]}
    echo "-- rc=$rc, $((SECONDS - t0)) s"
    [[ $rc -ne 0 ]] && failed=1
}
map=() # extra mapping flags of the next runs
T=$B/tests/mpi
if [[ $parts == *,tests,* ]]; then
go 60 "$np" -- "$T/test_onecopy"
go 60 "$np" -- "$T/test_shared_alloc"
go 90 "$np" REDIST_TEST_SHARED=all -- "$T/test_random_layouts" --cases 12
go 90 "$np" REDIST_TEST_SHARED=mixed REDIST_RANKS_PER_NODE=$((np / 4 > 0 ? np / 4 : 1)) -- "$T/test_random_layouts" --cases 12
fi
if [[ $parts == *,bench,* ]]; then
for arrays in shared malloc; do
    go 150 "$np" OMP_NUM_THREADS=1 -- "$B/bench_threads" --n "$n" --reps 7 --arrays "$arrays" \
        --alltoallw --case same,blocks,grid,half,small,1d
done
# 2 ranks x 8 threads (docs/performance.md's threads figures, two copies per moved byte then)
map=(--map-by slot:PE=8)
go 90 2 OMP_NUM_THREADS=8 OMP_PROC_BIND=close OMP_PLACES=cores -- "$B/bench_threads" --n "$n" \
    --threads 8 --reps 7 --arrays shared --case same,blocks,grid,small,grid1d,1d
map=()
for arrays in shared malloc; do
    go 60 4 -- "$B/bench_2d" --size 6000 --reps 10 --arrays "$arrays" \
        --methods memcpy,auto,alltoallw,pdgemr2d
done
fi
if [[ $parts == *,runs,* ]]; then
    side=$(awk -v p="$np" 'BEGIN { s = int(sqrt(p)); while (p % s) s--; print s }')
    for blocks in "36 128" "8 16" "32 48" "64 100" "128 128"; do
        set -- $blocks
        t0=$SECONDS
        OMP_PROC_BIND=close OMP_PLACES=cores timeout 60 "$B/bench_runs" --n "$n" \
            --grid "$side" --threads $((side * side)) --from "$1" --to "$2" || failed=1
        echo "-- $((SECONDS - t0)) s"
    done
fi
echo "run_onecopy: $([[ $failed -eq 0 ]] && echo PASSED || echo FAILED) in $SECONDS s"
exit $failed
