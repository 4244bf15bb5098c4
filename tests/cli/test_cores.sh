#!/usr/bin/env bash
# Threads beyond the cores (docs/api.md, "Threads"): a rank's threads beyond the cores of its
# affinity mask take turns there, and the cost model counts at most the cores. explain
# describes a rank of the process that runs it (--cores N: a rank of N cores): under
# taskset -c 0, 1024 threads (--threads or REDIST_NUM_THREADS) predict what 1 does, JSON
# cores is 1, the text's cores line says the model counts 1 thread, and stderr holds exactly
# one warning line; --cores 4 with 4 threads predicts less than 1 thread and warns of nothing.
# run on ranks of one core (taskset -c 0, the launcher's binding off): 4 threads verify,
# warn once, report cores 1 (text and --quiet) and predict what 1 thread does; 1 thread warns
# of nothing.
# MPIEXEC_PREFLAGS is a list of flags, split on purpose.
# shellcheck disable=SC2086
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
export OMP_WAIT_POLICY=passive REDIST_MACHINE_FILE=/nonexistent
unset REDIST_NUM_THREADS
PAIR=(--from 'n=1000x1000,block=10x10,grid=2x1' --to 'n=1000x1000,block=7x7,grid=1x2')
key() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$CLI_OUT" "$1"; }
# stderr is exactly one warning line naming these threads and cores
one_warning() {
    [[ "$(wc -l <"$CLI_ERR")" == 1 ]] &&
        grep -Eq "^redist: warning: $1 threads per rank for local moves, but .* may run on $2 cores? \(its affinity mask\)" "$CLI_ERR"
}

run_cmd taskset -c 0 "$REDIST" explain "${PAIR[@]}" --threads 2 --json
if [[ "$CLI_STATUS" == 1 ]] && grep -q "without OpenMP" "$CLI_ERR"; then
    echo "skip: the library has no OpenMP; threads > 1 are refused"
    finish
    exit 0
fi

# ---- explain on one core -------------------------------------------------------------------
run_cmd taskset -c 0 "$REDIST" explain "${PAIR[@]}" --threads 1 --json
one=$(key predicted_seconds)
if [[ "$CLI_STATUS" != 0 || "$(key cores)" != 1 || -s "$CLI_ERR" ]]; then
    fail "explain --threads 1 on one core: exit $CLI_STATUS, cores not 1, or stderr"
else echo "ok: explain on one core: cores 1, no warning with 1 thread"; fi
for how in "--threads 1024" "REDIST_NUM_THREADS=1024" "--threads 4"; do
    n=${how##*[ =]}
    if [[ "$how" == REDIST_NUM_THREADS=* ]]; then
        run_cmd env "$how" taskset -c 0 "$REDIST" explain "${PAIR[@]}" --json
    else run_cmd taskset -c 0 "$REDIST" explain "${PAIR[@]}" $how --json; fi
    if [[ "$CLI_STATUS" != 0 || "$(key threads)" != "$n" || "$(key cores)" != 1 ]]; then
        fail "explain $how on one core: exit $CLI_STATUS, threads $(key threads), cores $(key cores)"
    elif [[ "$(key predicted_seconds)" != "$one" ]]; then
        fail "explain $how on one core predicts $(key predicted_seconds) s, not $one s as 1 thread"
    elif ! one_warning "$n" 1; then fail "explain $how on one core: not one warning line"
    else echo "ok: explain $how on one core predicts as 1 thread ($one s), one warning"; fi
done
run_cmd taskset -c 0 "$REDIST" explain "${PAIR[@]}" --threads 1024
if [[ "$CLI_STATUS" != 0 ]] ||
    ! grep -qxF "  cores    1 per rank (this process's affinity mask): the model counts 1 thread" "$CLI_OUT"; then
    fail "explain --threads 1024 on one core: no cores line"
else echo "ok: explain's text says the model counts 1 thread"; fi

# ---- explain for a rank of 4 cores (--cores) -----------------------------------------------
run_cmd taskset -c 0 "$REDIST" explain "${PAIR[@]}" --threads 4 --cores 4 --json
if [[ "$CLI_STATUS" != 0 || "$(key cores)" != 4 || -s "$CLI_ERR" ]] ||
    ! python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" \
        "$(key predicted_seconds)" "$one"; then
    fail "explain --threads 4 --cores 4: exit $CLI_STATUS, cores $(key cores), predicted $(key predicted_seconds) s (1 thread: $one s)"
else echo "ok: explain --cores 4: 4 threads predict $(key predicted_seconds) s < $one s, no warning"; fi
run_cmd "$REDIST" explain "${PAIR[@]}" --cores 0
if [[ "$CLI_STATUS" != 2 ]] || ! grep -q "^redist: --cores: expected a positive integer, got '0'" "$CLI_ERR"; then
    fail "explain --cores 0: exit $CLI_STATUS"
else echo "ok: explain --cores 0 refused"; fi

# ---- run on ranks of one core -------------------------------------------------------------
UNBOUND=() # under taskset, every rank on core 0 (MPICH's hydra binds none by default)
[[ "${REDIST_MPI:-openmpi}" == openmpi ]] && UNBOUND=(--bind-to none)
on_core0() { local n=$1; shift; run_cmd 120 taskset -c 0 "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "${UNBOUND[@]}" "$REDIST" "$@"; }
RUN=(run --from 'n=100000,block=3' --to 'n=100000,block=7' --repeat 2)
on_core0 2 "${RUN[@]}" --threads 4 --verify
if [[ "$CLI_STATUS" != 0 ]] || ! grep -q '^  verified   all 100000 elements correct' "$CLI_OUT"; then
    fail "run --threads 4 on one core: exit $CLI_STATUS, not verified"
elif ! grep -qxF "  cores      1 per rank (each rank's affinity mask): the model counts 1 thread" "$CLI_OUT"; then
    fail "run --threads 4 on one core: no cores line"
elif ! one_warning 4 1; then fail "run --threads 4 on one core: not one warning line"
else echo "ok: run --threads 4 on one core: verified, the cores line, one warning"; fi
predicted() { sed -n 's/.* predicted_seconds=\([^ ]*\) .*/\1/p' "$CLI_OUT"; }
on_core0 2 "${RUN[@]}" --threads 1 --quiet
p1=$(predicted)
if [[ "$CLI_STATUS" != 0 || -s "$CLI_ERR" ]] || ! grep -q ' cores=1 threads=1$' "$CLI_OUT"; then
    fail "run --threads 1 --quiet on one core: exit $CLI_STATUS, a warning, or no cores=1"
else echo "ok: run --threads 1 on one core: cores=1, no warning"; fi
run_cmd 120 env REDIST_NUM_THREADS=1024 taskset -c 0 "$MPIEXEC" -n 2 $MPIEXEC_PREFLAGS \
    "${UNBOUND[@]}" "$REDIST" "${RUN[@]}" --quiet
if [[ "$CLI_STATUS" != 0 || "$(predicted)" != "$p1" ]] || ! grep -q ' cores=1 threads=1024$' "$CLI_OUT"; then
    fail "run with REDIST_NUM_THREADS=1024 on one core: exit $CLI_STATUS, predicted $(predicted) s (1 thread: $p1 s)"
elif ! one_warning 1024 1; then fail "run with REDIST_NUM_THREADS=1024 on one core: not one warning line"
else echo "ok: run with REDIST_NUM_THREADS=1024 on one core predicts as 1 thread ($p1 s), one warning"; fi
finish
