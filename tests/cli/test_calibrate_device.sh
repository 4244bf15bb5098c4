#!/usr/bin/env bash
# The device terms of the model: with a device on every rank (here the emulated
# one, REDIST_DEVICE_BACKEND=emulated) calibrate times round trips off and onto it and a
# device plan's kernel and one pulling from the next rank's device memory, prints them and
# writes device_per_byte, device_copy_per_byte,
# device_launch and device_ipc_per_byte (positive) with the other parameters; without one
# (CI has no CUDA driver) it says why and writes the values plans read now (here
# REDIST_MACHINE_DEVICE_PER_BYTE's). Plans and explain read them: explain --memory cuda's
# staging time grows with device_per_byte where messages are staged (REDIST_DEVICE_IPC=0),
# and on one node, where they are pulled over inter-process memory, nothing is staged and the
# prediction grows with device_ipc_per_byte.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
unset REDIST_MACHINE_DEVICE_PER_BYTE REDIST_MACHINE_DEVICE_LAUNCH REDIST_MACHINE_DEVICE_COPY_PER_BYTE \
    REDIST_MACHINE_DEVICE_IPC_PER_BYTE REDIST_DEVICE_IPC
# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
mpi() { run_cmd 240 "$MPIEXEC" -n 2 $MPIEXEC_PREFLAGS "$@"; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT
value() { awk -v k="$1" '$1 == k {print $3}' "$2"; }
positive() { python3 -c "import sys; sys.exit(0 if 0 < float(sys.argv[1]) < 1 else 1)" "${1:-x}"; }

mpi env REDIST_DEVICE_BACKEND=emulated "$REDIST" calibrate --quick --output "$TMP/machine"
if [[ "$CLI_STATUS" != 0 ]]; then fail "calibrate with the emulated device: exit $CLI_STATUS"
elif ! grep -q '^  device                 emulated' "$CLI_OUT" ||
    ! grep -q '^  device copies .*launch or wait' "$CLI_OUT" ||
    ! grep -q '^  device kernels .*ns/B' "$CLI_OUT" ||
    ! grep -q '^  device pulls .*ns/B.*pulled from its device memory' "$CLI_OUT"; then
    fail "calibrate with the emulated device: no device lines"
else
    ok=1
    for k in device_per_byte device_copy_per_byte device_launch device_ipc_per_byte; do
        positive "$(value $k "$TMP/machine")" || { ok=0; fail "$k not written: '$(value $k "$TMP/machine")'"; }
    done
    [[ $ok == 1 ]] && echo "ok: calibrate measures and writes the device terms"
fi

mpi env REDIST_MACHINE_DEVICE_PER_BYTE=2.5e-10 "$REDIST" calibrate --quick --output "$TMP/kept"
if [[ "$CLI_STATUS" != 0 ]]; then fail "calibrate without a device: exit $CLI_STATUS"
elif ! grep -q '^  device                 not measured (.*CUDA' "$CLI_OUT"; then
    fail "calibrate without a device: does not say why"
elif ! python3 -c "import sys; sys.exit(0 if abs(float(sys.argv[1]) / 2.5e-10 - 1) < 1e-9 else 1)" "$(value device_per_byte "$TMP/kept")"; then
    fail "calibrate without a device: device_per_byte $(value device_per_byte "$TMP/kept"), not the value plans read (2.5e-10)"
else echo "ok: without a device, calibrate keeps the device terms plans read"; fi

json_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$CLI_OUT" "$1"; }
staging() {
    run_cmd 60 env REDIST_DEVICE_IPC=0 REDIST_MACHINE_DEVICE_PER_BYTE="$1" "$REDIST" explain \
        --from n=1M,block=2,procs=4 --to n=1M,block=8 --memory cuda --json
    json_of staging_seconds
}
slow=$(staging 1e-9) fast=$(staging 1e-11)
if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 10 * float(sys.argv[2]) > 0 else 1)" "$slow" "$fast"; then
    echo "ok: explain's staging time follows device_per_byte ($slow s against $fast s)"
else fail "explain's staging time does not follow device_per_byte: $slow s, $fast s"; fi

# one node, pulled: staging is the launches alone, whatever device_per_byte; the prediction
# follows device_ipc_per_byte
pulled() {
    run_cmd 60 env REDIST_MACHINE_DEVICE_PER_BYTE=1e-9 REDIST_MACHINE_DEVICE_IPC_PER_BYTE="$1" \
        "$REDIST" explain --from n=1M,block=2,procs=4 --to n=1M,block=8 --memory cuda --json
    echo "$(json_of staging_seconds) $(json_of predicted_seconds)"
}
read -r st_slow pred_slow <<<"$(pulled 1e-9)"
read -r st_fast pred_fast <<<"$(pulled 1e-12)"
if python3 -c "import sys; a = [float(x) for x in sys.argv[1:]]; sys.exit(0 if a[0] == a[1] < 1e-4 and a[2] > 10 * a[3] > 0 else 1)" \
    "$st_slow" "$st_fast" "$pred_slow" "$pred_fast"; then
    echo "ok: pulled over inter-process memory, nothing staged ($st_slow s of launches) and the prediction follows device_ipc_per_byte ($pred_slow s against $pred_fast s)"
else fail "pulled: staging $st_slow s and $st_fast s, predicted $pred_slow s and $pred_fast s"; fi
