#!/usr/bin/env bash
# Device memory on a GPU node, the library's and the Python package's, run by hand where one
# is lent: the node has CUDA's driver but no MPI (docs/dev/device.md, "The CUDA backend").
# From a copy of the
# repository holding a build (built here, with nvcc: the kernels are embedded) and
# .node/mpi-runtime.tgz:
#
#     [BUILD=dir] [DEADLINE=sec] [OUT=dir] bash tests/gpu/run.sh [CASES]
#
# CASES: random cases per run (default 30). BUILD: the build tree or a copy of the binaries
# below in the same layout (default build; tests/gpu/slim.sh makes a small one to carry).
# PARTS: which parts run, a comma list of tests, bench and python (default: all).
# DEADLINE: seconds for the whole script (default 0: none); each run's limit is cut to what
# is left, and a run with under 15 s left is reported as not run. OUT: where each run's full
# output goes (default: nowhere).
#
# In order of importance, each run with its own time limit, on the real CUDA backend (no
# emulation): test_device (the rules, a CUDA plan's every element, AUTO's mixes) at 1, 2 and
# 4 ranks sharing the GPU; test_device_onecopy (device arrays pulled through CUDA IPC) at 2
# and 4; test_random_layouts with its arrays in device memory (memory =
# CUDA and AUTO); `redist run --memory cuda --verify` on a 2-D, a 1-D bounded, a transposing
# and a scaled pair; the benchmark bench_device (device plans against the naive
# copy-off/host-plan/copy-on path and the staging floor; the device path's targets:
# naive/device >= 2 and device/floor <= 1.5 at 4 ranks, n = 8000), with the shared-memory
# window and without (options.shared_memory = 0: the messages through MPI); test_batch and
# test_inter with memory = CUDA and AUTO; the Python package's tests, CuPy's arrays
# included, at 1, 2 and 4 ranks, where python3 has NumPy, mpi4py for this Open MPI, pytest
# and CuPy (.node/py, if there, is put on PYTHONPATH: Debian's pytest, which the GPU node's
# image lacks; tests/gpu/slim.sh --python makes it); bench_device at 1 and 2 ranks;
# `redist calibrate` for the device terms.
# Prints one line per correctness run, each benchmark's output in full, and a summary;
# exit 1 if any run failed (a benchmark fails on a wrong element or an error, not on a
# missed target).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
cases=${1:-30}
B=$(cd "${BUILD:-build}" && pwd) || exit 1
deadline=${DEADLINE:-0}
out_dir=${OUT:-}
[[ -n $out_dir ]] && mkdir -p "$out_dir"
tar -xzkf .node/mpi-runtime.tgz -C / 2>/dev/null
ldconfig
export LD_LIBRARY_PATH="$B:/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset REDIST_DEVICE_BACKEND
MR=(/usr/bin/orterun -x LD_LIBRARY_PATH --mca mtl '^ofi' --mca pml ob1 --mca btl 'self,vader'
    --oversubscribe --bind-to none)
nvidia-smi --query-gpu=name,memory.total,compute_mode,driver_version --format=csv,noheader || true
failed=0 skipped=0 nrun=0
# limit_for WANTED: the seconds a run may take, cut to the deadline; empty if under 15 s left
limit_for() {
    local want=$1
    if [[ $deadline -gt 0 ]]; then
        local left=$((deadline - SECONDS))
        [[ $left -lt 15 ]] && return 1
        [[ $left -lt $want ]] && want=$left
    fi
    echo "$want"
}
keep() { # keep NAME TEXT: a run's full output under OUT
    [[ -n $out_dir ]] && printf '%s\n' "$2" >"$out_dir/$(tr -c 'A-Za-z0-9_.=-' _ <<<"$1").log"
}
# launch KIND LIMIT NP [VAR=VALUE...] -- PROGRAM ARGS...: one bounded run under orterun, with
# the variables set and exported to the ranks; its output kept under OUT. KIND check: one
# line (the output's end if it failed), passed on "No Errors" or "verified   all"; bench: the
# output in full, passed on "all results verified" or calibrate's "wrote "; pytest: one line
# and pytest's summary, passed on exit status 0.
launch() {
    local kind=$1 limit=$2 np=$3 vars=() xs=()
    shift 3
    while [[ $1 != -- ]]; do vars+=("$1"); xs+=(-x "${1%%=*}"); shift; done
    shift
    local what="-n $np ${vars[*]} $*"
    if ! limit=$(limit_for "$limit"); then
        skipped=$((skipped + 1)); echo "not run (deadline) $what"; return
    fi
    local out rc start=$SECONDS pass=0
    nrun=$((nrun + 1))
    out=$(env "${vars[@]}" timeout "$limit" "${MR[@]}" "${xs[@]}" -n "$np" "$@" 2>&1)
    rc=$?
    keep "$kind n$np ${vars[*]} ${*##*/}" "$out"
    case $kind in
    check) grep -Eq "No Errors|verified   all" <<<"$out" && pass=1 ;;
    bench) echo "---- $what"; grep -v '^\[' <<<"$out"
           grep -Eq "all results verified|^wrote " <<<"$out" && pass=1 ;;
    pytest) pass=1 ;;
    esac
    if [[ $rc -eq 0 && $pass -eq 1 ]]; then
        echo "ok   ($((SECONDS - start)) s) $what"
    else
        failed=$((failed + 1))
        echo "FAIL (exit $rc, $((SECONDS - start)) s) $what"
        [[ $kind == bench ]] || grep -v '^\[' <<<"$out" | tail -15
    fi
    [[ $kind == pytest ]] && grep -E "passed|SKIPPED" <<<"$out" | sort -u
}
run() { launch check "$@"; }
bench() { launch bench "$@"; }
T=$B/tests/mpi
part() { [[ -z ${PARTS:-} || ,$PARTS, == *,$1,* ]]; }
if part tests; then
for np in 1 2 4; do
    run 90 "$np" -- "$T/test_device"
done
for np in 2 4; do # one copy between the ranks' device arrays (CUDA IPC)
    run 90 "$np" REDIST_DEVICE_BACKEND=cuda -- "$T/test_device_onecopy"
done
for np in 4 2 1; do
    for mem in cuda auto; do
        run 150 "$np" REDIST_TEST_MEMORY=$mem -- "$T/test_random_layouts" --cases "$cases"
    done
done
run 90 4 -- "$B/redist" run --from n=4000x4000,block=64x64 --to n=4000x4000,block=100x100 \
    --memory cuda --verify
run 90 4 -- "$B/redist" run --from n=1000000,block=3 --to n=1000000,block=7 --memory cuda \
    --max-buffer 1M --verify
run 90 4 -- "$B/redist" run --from n=2000x3000,block=32x32 --to n=3000x2000,block=128x128 \
    --permute 1,0 --memory auto --verify
run 90 4 -- "$B/redist" run --from n=3000x3000,block=50x50 --to n=3000x3000,block=64x64 \
    --memory cuda --alpha 2 --beta 0.5 --verify
fi
if part bench; then
echo "== bench_device (the targets at 4 ranks: naive/device >= 2, device/floor <= 1.5;"
echo "   pulled over CUDA IPC: device/d2d <= 1.3, staged/device >= 5)"
bench 150 4 -- "$B/bench_device" --size 8000 --reps 10 --budget 20
echo "== bench_device at 2 and 8 ranks sharing the GPU (pulled: device/d2d, staged/device)"
for np in 2 8; do
    bench 150 "$np" -- "$B/bench_device" --size 8000 --reps 5 --budget 15
done
echo "== bench_device without the shared-memory window (the messages through MPI)"
bench 120 4 -- "$B/bench_device" --size 8000 --reps 10 --budget 15 --case 36to128,grid,2to4 --window 0
fi
if part tests; then
for np in 2 4; do # test_inter needs 2 ranks: a source and a destination group
    for mem in cuda auto; do
        run 150 "$np" REDIST_TEST_MEMORY=$mem -- "$T/test_batch" --cases "$cases"
        run 150 "$np" REDIST_TEST_MEMORY=$mem -- "$T/test_inter"
    done
done
fi
if part python; then
# The Python package with CuPy's arrays, where python3 has what it needs.
[[ -d .node/py ]] && export PYTHONPATH="$PWD/.node/py${PYTHONPATH:+:$PYTHONPATH}"
# orterun puts its own prefix (/usr/bin) first in PATH: the interpreter by its full path (the
# node's is a venv's, with NumPy, mpi4py and CuPy)
py=$(command -v python3)
"$py" -c 'import sys; print("python", sys.version.split()[0], sys.executable)' || true
"$py" -c 'from mpi4py import MPI; import mpi4py, numpy, cupy
print("mpi4py", mpi4py.__version__, "on", MPI.Get_library_version().splitlines()[0],
      "| numpy", numpy.__version__, "| cupy", cupy.__version__)' 2>&1 | tail -1 || true
missing=$("$py" -c 'import importlib
out = []
for m in ("numpy", "mpi4py.MPI", "pytest", "_pytest.main", "cupy"):
    try:
        importlib.import_module(m)
    except Exception as e:
        out.append("%s (%s)" % (m, str(e).splitlines()[0][:80] if str(e) else type(e).__name__))
print(", ".join(out))' 2>&1)
if [[ -z "$missing" ]]; then
    # no plugin autoloading: the image's (pytest-timeout) need a newer pytest than Debian's
    for np in 1 2 4; do
        launch pytest 90 "$np" REDIST_LIBRARY="$B/libredist.so" \
            PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \
            -- "$py" -m pytest -q -rs -p no:cacheprovider --color=no "$PWD/python/tests"
    done
else
    echo "python: not run on this node: python3 lacks $missing"
fi
fi
if part bench; then
for np in 1 2; do
    bench 120 "$np" -- "$B/bench_device" --size 4000 --budget 10
done
echo "== redist calibrate (4 ranks sharing the GPU: the device terms, device pulls included)"
bench 150 4 -- "$B/redist" calibrate ${out_dir:+--output "$out_dir/machine-gpu"}
fi
echo "gpu: $nrun runs, $failed failed, $skipped not run (deadline)"
[[ $failed -eq 0 && $skipped -eq 0 ]]
