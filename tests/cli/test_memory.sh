#!/usr/bin/env bash
# --memory: run takes host, cuda or auto; with the emulated device
# (REDIST_DEVICE_BACKEND=emulated: memory the host cannot touch) run verifies every element
# with both arrays on the device (cuda) and with the source there and the destination in
# host memory (auto), at 1 and 3 ranks, bounded, scaled, transposed and threaded, in a batch
# and between two groups (--inter); a forced
# algorithm that reads arrays on the host is refused with the reason; without a driver (CI
# has none) --memory cuda exits 1 on every rank saying why, and a bad value is a usage error.
# explain --memory (no device needed): the algorithms that cannot move device memory say
# why, and the staging's time is part of the prediction; --memory auto without a device is
# the host plan (explain) and runs on host arrays (run).
# MPIEXEC_PREFLAGS is a list of words, split on purpose.
# shellcheck disable=SC2086
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
export OMP_WAIT_POLICY=passive
emulated() { local n=$1; shift; run_cmd 120 env REDIST_DEVICE_BACKEND=emulated "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "$REDIST" "$@"; }
PAIR=(--from 'n=40x30,block=3x4' --to 'n=40x30,block=5x2')

# expect_verified NP ARGS...: run on the emulated device exits 0 and verifies.
expect_verified() {
    local np=$1; shift
    emulated "$np" run "$@" --verify --repeat 2
    if [[ "$CLI_STATUS" != 0 ]] || ! grep -q '^  verified   all [0-9]* elements correct' "$CLI_OUT"; then
        fail "run -n $np $*: exit $CLI_STATUS, not verified ($(grep '^redist' "$CLI_ERR"))"
    else echo "ok: verified on $np rank(s): $*"; fi
}
for np in 1 3; do
    for mem in cuda auto; do
        expect_verified "$np" "${PAIR[@]}" --memory "$mem"
        expect_verified "$np" --from n=30000,block=4 --to n=30000,block=7 --memory "$mem" \
            --max-buffer 4k
        expect_verified "$np" "${PAIR[@]}" --memory "$mem" --alpha 2 --beta 0.5
        expect_verified "$np" --from n=40x30,block=3x4 --to n=30x40,block=5x2 --permute 1,0 \
            --memory "$mem" --type int
        expect_verified "$np" "${PAIR[@]}" --memory "$mem" --threads 2 --type double3
    done
done
for mem in cuda auto; do
    expect_verified 3 "${PAIR[@]}" --memory "$mem" --batch 3
    expect_verified 3 --from n=40x30,block=3x4,procs=2 --to n=40x30,block=5x2 --memory "$mem" \
        --inter
done
expect_verified 3 "${PAIR[@]}" --memory cuda --algorithm indirect

# the device line: on one node every message is pulled over inter-process memory; on nodes
# of 1 (REDIST_RANKS_PER_NODE=1) every message is staged
device_line() {
    run_cmd 120 env REDIST_DEVICE_BACKEND=emulated REDIST_RANKS_PER_NODE="$1" "$MPIEXEC" -n 3 \
        $MPIEXEC_PREFLAGS "$REDIST" run "${PAIR[@]}" --memory cuda --algorithm direct-async --verify
    grep '^  device ' "$CLI_OUT"
}
one=$(device_line 3) apart=$(device_line 1)
if [[ "$one" =~ of\ ([0-9]+)\ messages,\ ([0-9]+)\ pulled.*\ 0\ staged && ${BASH_REMATCH[1]} -gt 0 &&
    ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" && "$apart" =~ \ 0\ pulled.*\ ([0-9]+)\ staged &&
    ${BASH_REMATCH[1]} -gt 0 ]]; then
    echo "ok: run's device line: all pulled on one node ($one), all staged across nodes"
else fail "run's device line: '$one' on one node, '$apart' on nodes of 1"; fi
expect_verified 3 --from n=600,block=200 --to n=600,block=1 --memory cuda --algorithm block-to-cyclic

emulated 3 run "${PAIR[@]}" --memory cuda --algorithm general
if [[ "$CLI_STATUS" != 1 ]] || ! grep -q "cannot move device memory" "$CLI_ERR"; then
    fail "general on device memory: exit $CLI_STATUS, no reason"
else echo "ok: general refuses device memory, saying why"; fi

# Without the emulated device: the CUDA driver, which CI lacks (a GPU node has one, and
# then says what is still missing); every rank exits 1, rank 0 says why, no hang.
# shellcheck disable=SC2016
run_cmd 60 "$MPIEXEC" -n 3 $MPIEXEC_PREFLAGS bash -c '"$0" "$@"; echo "rank exit $?" >&2' \
    "$REDIST" run "${PAIR[@]}" --memory cuda --verify
if [[ "$CLI_STATUS" == 124 ]]; then fail "--memory cuda without a driver hangs"
elif [[ "$(grep -c '^rank exit 1$' "$CLI_ERR")" != 3 ]]; then
    fail "--memory cuda without a driver: not every rank exits 1"
elif [[ "$(grep -c '^redist' "$CLI_ERR")" != 1 ]] || ! grep -q '^redist: --memory cuda: .*CUDA' "$CLI_ERR"; then
    fail "--memory cuda without a driver: not one line saying why"
else echo "ok: --memory cuda without a driver: every rank exits 1, one line"; fi

run_cmd 60 "$MPIEXEC" -n 2 $MPIEXEC_PREFLAGS "$REDIST" run "${PAIR[@]}" --memory gpu
if [[ "$CLI_STATUS" != 2 ]] ||
    [[ "$(grep '^redist' "$CLI_ERR")" != "redist: --memory: expected host, cuda or auto, got 'gpu'" ]]; then
    fail "--memory gpu: exit $CLI_STATUS"
else echo "ok: --memory gpu refused"; fi

run_cmd 60 "$REDIST" explain "${PAIR[@]}" --procs 4 --memory cuda --json
if [[ "$CLI_STATUS" != 0 ]] || ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in d["algorithms"]}
assert d["arrays"] == "cuda", d["arrays"]
assert 0 < d["staging_seconds"] < d["predicted_seconds"], (d["staging_seconds"], d["predicted_seconds"])
assert not rows["general"]["applicable"] and "device memory" in rows["general"]["why_not"]
assert not rows["alltoallw"]["applicable"] and rows["direct-async"]["applicable"]
' "$CLI_OUT"; then
    fail "explain --memory cuda: exit $CLI_STATUS, or no staging time / refusals"
else echo "ok: explain --memory cuda: staging in the prediction, general and alltoallw refused"; fi

# two nodes of 2: on each node the messages are pulled over inter-process memory (ipc); with a
# GPU-aware MPI (REDIST_GPU_AWARE_MPI=1) those between nodes leave from device buffers too
# (mpi): direct and direct-async stage nothing, the others still do, and auto takes the former
gpu_mpi_json() {
    run_cmd 60 env REDIST_GPU_AWARE_MPI="$1" "$REDIST" explain "${PAIR[@]}" --procs 4 --ranks-per-node 2 \
        --memory cuda --json
}
gpu_mpi_json 0
cp "$CLI_OUT" "$CLI_OUT.staged"
gpu_mpi_json 1
if [[ "$CLI_STATUS" != 0 ]] || ! python3 -c '
import json, sys
staged, aware = (json.load(open(f)) for f in sys.argv[1:])
rows0 = {r["name"]: r for r in staged["algorithms"] if r["applicable"]}
rows1 = {r["name"]: r for r in aware["algorithms"] if r["applicable"]}
for name in ("direct", "direct-async"):
    a, b = rows0[name], rows1[name]
    assert a["device_ipc"] and not a["device_mpi"] and b["device_ipc"] and b["device_mpi"], name
    assert b["staging_seconds"] < a["staging_seconds"] / 2, (name, a["staging_seconds"], b["staging_seconds"])
    assert b["predicted_seconds"] < a["predicted_seconds"], name
for name in ("alltoallv", "hybrid"):
    assert not rows1[name]["device_mpi"] and not rows1[name]["device_ipc"], name
    assert rows1[name]["staging_seconds"] == rows0[name]["staging_seconds"], name
assert aware["algorithm"] in ("direct", "direct-async"), aware["algorithm"]
' "$CLI_OUT.staged" "$CLI_OUT"; then
    fail "explain --memory cuda on two nodes: GPU-aware MPI not in the rows (exit $CLI_STATUS)"
else echo "ok: explain --memory cuda on two nodes: ipc on the node, mpi between nodes with a GPU-aware MPI, staging only for the others"; fi
rm -f "$CLI_OUT.staged"
run_cmd 60 "$REDIST" explain "${PAIR[@]}" --procs 4 --json
if [[ "$CLI_STATUS" != 0 ]] || ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["arrays"] == "host" and d["staging_seconds"] == 0
' "$CLI_OUT"; then
    fail "explain (host): staging_seconds not 0"
else echo "ok: explain on host memory: no staging"; fi

# --memory auto where no device backend loads is host memory: explain's JSON is the host
# plan's, byte for byte (the choice, the prediction, the refusals), its text says why, and
# run verifies with the arrays in host memory. A 1000 x 1000 re-block and an 8 x 6 pair.
for pair in 'n=1000x1000,block=10x10,grid=2x1 n=1000x1000,block=7x7,grid=1x2' \
            'n=8x6,block=1x1,grid=2x1 n=8x6,block=2x3,grid=1x2'; do
    read -r from to <<<"$pair"
    for extra in "" "--algorithm alltoallw"; do
        # shellcheck disable=SC2086
        run_cmd 60 "$REDIST" explain --from "$from" --to "$to" --memory auto --json $extra
        # shellcheck disable=SC2086
        want=$("$REDIST" explain --from "$from" --to "$to" --memory host --json $extra)
        if [[ "$CLI_STATUS" != 0 || "$(cat "$CLI_OUT")" != "$want" ]]; then
            fail "explain --memory auto ${extra:-(auto)} without a device: not the host plan ($from)"
        else echo "ok: explain --memory auto ${extra:-(auto)} without a device is the host plan ($from)"; fi
    done
    run_cmd 60 "$REDIST" explain --from "$from" --to "$to" --memory auto
    if [[ "$CLI_STATUS" != 0 ]] || ! grep -q '^  arrays   in host memory (--memory auto' "$CLI_OUT"; then
        fail "explain --memory auto without a device: no line saying the arrays are in host memory"
    else echo "ok: explain --memory auto without a device says so ($from)"; fi
    run_cmd 120 "$MPIEXEC" -n 2 $MPIEXEC_PREFLAGS "$REDIST" run --from "$from" --to "$to" \
        --memory auto --verify --repeat 2
    if [[ "$CLI_STATUS" != 0 ]] || ! grep -q '^  verified   all [0-9]* elements correct' "$CLI_OUT"; then
        fail "run --memory auto without a device: exit $CLI_STATUS, not verified ($from)"
    else echo "ok: run --memory auto without a device verifies on host arrays ($from)"; fi
done
finish
