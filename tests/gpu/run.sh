#!/usr/bin/env bash
# Device memory on a GPU node (issue 28), run by hand where one is lent: the node has CUDA's
# driver but no MPI (../shared/gpu-node/README.md). From a copy of the repository holding
# build/ (built here, with nvcc: the kernels are embedded) and .node/mpi-runtime.tgz:
#
#     bash tests/gpu/run.sh [CASES]        # CASES: random cases per run (default 30)
#
# Runs, each with its own time limit, on the real CUDA backend (no emulation): test_device
# (the rules, a CUDA plan's every element, AUTO's mixes) and test_random_layouts with its
# arrays in device memory (memory = CUDA and AUTO) at 1, 2 and 4 ranks sharing the GPU,
# and `redist run --memory cuda --verify` on a 2-D, a 1-D bounded, a transposing and a
# scaled pair;
# prints one line per run and a summary; exit 1 if any failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
cases=${1:-30}
tar -xzkf .node/mpi-runtime.tgz -C / 2>/dev/null
ldconfig
export LD_LIBRARY_PATH="$PWD/build:/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset REDIST_DEVICE_BACKEND
MR=(/usr/bin/orterun -x LD_LIBRARY_PATH --mca mtl '^ofi' --mca pml ob1 --mca btl 'self,vader'
    --oversubscribe --bind-to none)
nvidia-smi --query-gpu=name,memory.total,compute_mode --format=csv,noheader || true
failed=0
run() { # run LIMIT NP [VAR=VALUE...] -- PROGRAM ARGS...: one bounded run, one line
    local limit=$1 np=$2 vars=() xs=()
    shift 2
    while [[ $1 != -- ]]; do vars+=("$1"); xs+=(-x "${1%%=*}"); shift; done
    shift
    local out rc start=$SECONDS
    out=$(env "${vars[@]}" timeout "$limit" "${MR[@]}" "${xs[@]}" -n "$np" "$@" 2>&1)
    rc=$?
    if [[ $rc -eq 0 ]] && grep -Eq "No Errors|verified   all" <<<"$out"; then
        echo "ok   ($((SECONDS - start)) s) -n $np ${vars[*]} $*"
    else
        failed=$((failed + 1))
        echo "FAIL (exit $rc, $((SECONDS - start)) s) -n $np ${vars[*]} $*"
        grep -v '^\[' <<<"$out" | tail -15
    fi
}
for np in 1 2 4; do
    run 120 "$np" -- build/tests/mpi/test_device
    for mem in cuda auto; do
        run 300 "$np" REDIST_TEST_MEMORY=$mem -- build/tests/mpi/test_random_layouts --cases "$cases"
    done
done
run 120 4 -- build/redist run --from n=4000x4000,block=64x64 --to n=4000x4000,block=100x100 \
    --memory cuda --verify
run 120 4 -- build/redist run --from n=1000000,block=3 --to n=1000000,block=7 --memory cuda \
    --max-buffer 1M --verify
run 120 4 -- build/redist run --from n=2000x3000,block=32x32 --to n=3000x2000,block=128x128 \
    --permute 1,0 --memory auto --verify
run 120 4 -- build/redist run --from n=3000x3000,block=50x50 --to n=3000x3000,block=64x64 \
    --memory cuda --alpha 2 --beta 0.5 --verify
echo "gpu: $failed runs failed"
[[ $failed -eq 0 ]]
