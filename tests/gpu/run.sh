#!/usr/bin/env bash
# Device memory on a GPU node (issue 28), run by hand where one is lent: the node has CUDA's
# driver but no MPI (docs/dev/device.md, "The CUDA backend"). From a copy of the repository holding
# build/ (built here, with nvcc: the kernels are embedded) and .node/mpi-runtime.tgz:
#
#     bash tests/gpu/run.sh [CASES]        # CASES: random cases per run (default 30)
#
# Runs, each with its own time limit, on the real CUDA backend (no emulation): test_device
# (the rules, a CUDA plan's every element, AUTO's mixes) and test_random_layouts with its
# arrays in device memory (memory = CUDA and AUTO) at 1, 2 and 4 ranks sharing the GPU;
# test_batch (CASES batches) and test_inter with memory = CUDA and AUTO at 2 and 4 ranks;
# `redist run --memory cuda --verify` on a 2-D, a 1-D bounded, a transposing and a scaled
# pair; then the benchmark bench_device (device plans against the naive copy-off/host-plan/
# copy-on path and the staging floor; issue 28's targets: naive/device >= 2 and
# device/floor <= 1.5 at 4 ranks, n = 8000) at 4 ranks with n = 8000 and at 1 and 2 ranks
# with n = 4000.
# Then the Python package's device tests with CuPy's arrays (issue 29), where the node's
# python3 has NumPy, mpi4py (for this Open MPI), pytest and CuPy; else it says what is missing.
# Prints one line per correctness run, each benchmark's output in full, and a summary;
# exit 1 if any run failed (a benchmark fails on a wrong element or an error, not on a
# missed target).
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
bench() { # bench LIMIT NP -- PROGRAM ARGS...: one bounded benchmark run, its output in full
    local limit=$1 np=$2
    shift 3
    local out rc start=$SECONDS
    out=$(timeout "$limit" "${MR[@]}" -n "$np" "$@" 2>&1)
    rc=$?
    echo "---- -n $np $*"
    grep -v '^\[' <<<"$out"
    if [[ $rc -eq 0 ]] && grep -q "all results verified" <<<"$out"; then
        echo "ok   ($((SECONDS - start)) s) -n $np $*"
    else
        failed=$((failed + 1))
        echo "FAIL (exit $rc, $((SECONDS - start)) s) -n $np $*"
    fi
}
for np in 1 2 4; do
    run 120 "$np" -- build/tests/mpi/test_device
    for mem in cuda auto; do
        run 300 "$np" REDIST_TEST_MEMORY=$mem -- build/tests/mpi/test_random_layouts --cases "$cases"
    done
done
for np in 2 4; do # test_inter needs 2 ranks: a source and a destination group
    for mem in cuda auto; do
        run 300 "$np" REDIST_TEST_MEMORY=$mem -- build/tests/mpi/test_batch --cases "$cases"
        run 300 "$np" REDIST_TEST_MEMORY=$mem -- build/tests/mpi/test_inter
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
echo "== bench_device (issue 28's targets at 4 ranks: naive/device >= 2, device/floor <= 1.5)"
bench 300 4 -- build/bench_device --size 8000 --reps 10
for np in 1 2; do
    bench 300 "$np" -- build/bench_device --size 4000
done
# The Python package (issue 29) with CuPy's arrays, where the node's python3 has what it needs
# (the image has CuPy; mpi4py must be built for this Open MPI 4: Debian's is not in the tarball).
missing=$(python3 -c 'import importlib.util as u
print(" ".join(m for m in ("numpy", "mpi4py", "pytest", "cupy") if u.find_spec(m) is None))' 2>&1)
if [[ -z "$missing" ]]; then
    for np in 1 2; do
        start=$SECONDS
        out=$(cd python && REDIST_LIBRARY="$PWD/../build/libredist.so" PYTHONPATH=. \
            timeout 300 "${MR[@]}" -x REDIST_LIBRARY -x PYTHONPATH -n "$np" python3 -m pytest -q -rs \
            -p no:cacheprovider --color=no tests/test_device.py tests/test_plan.py 2>&1)
        if [[ $? -eq 0 ]]; then echo "ok   ($((SECONDS - start)) s) -n $np python tests (CuPy)"
        else failed=$((failed + 1)); echo "FAIL -n $np python tests (CuPy)"; tail -20 <<<"$out"; fi
        grep -E "passed|SKIPPED" <<<"$out" | sort -u
    done
else
    echo "python: not run on this node: python3 lacks $missing"
fi
echo "gpu: $failed runs failed"
[[ $failed -eq 0 ]]
