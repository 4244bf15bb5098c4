#!/usr/bin/env bash
# --threads N: run, bench, demo and explain take it; a bad value is a usage error
# (exit 2, one line on rank 0) in each; run with threads verifies every element at 1 and 3
# ranks, for a plain, a batch, a relabelled, an inter and a transposing plan, and reports the
# threads it used; without --threads REDIST_NUM_THREADS applies, and a malformed variable
# makes every rank of run exit 1 with the library's message, without a hang.
# MPIEXEC_PREFLAGS and the commands in loops are lists of words, split on purpose.
# shellcheck disable=SC2086
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
# Small arrays take the threaded paths only when every thread's share may be small.
export REDIST_THREAD_MIN_BYTES=1 OMP_WAIT_POLICY=passive
unset REDIST_NUM_THREADS
mpi() { local n=$1; shift; run_cmd 120 "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "$REDIST" "$@"; }
PAIR=(--from 'n=48,block=2,procs=2' --to 'n=48,block=6')
BAD="redist: --threads: expected a whole number of threads from 1 to 1024, got"

# ---- Bad values: every command, exit 2, exactly one line (rank 0's). ---------------------
for v in 0 -1 abc 99999 '' 1025 2.5 ' 3' +2 2x; do
    run_cmd "$REDIST" explain "${PAIR[@]}" --threads "$v"
    if [[ "$CLI_STATUS" != 2 || "$(cat "$CLI_ERR")" != "$BAD '$v'" || -s "$CLI_OUT" ]]; then
        fail "explain --threads '$v': exit $CLI_STATUS"
    else echo "ok: explain --threads '$v' refused"; fi
done
# run, bench and demo share the parser: every value on run, one on the others.
for v in 0 -1 abc 99999 '' bench demo; do
    cmds=("run ${PAIR[*]}")
    case $v in
    bench) cmds=("bench --quick") v=abc ;;
    demo) cmds=("demo") v=abc ;;
    esac
    want="$BAD '$v'"
    for cmd in "${cmds[@]}"; do
        mpi 2 $cmd --threads="$v"
        if [[ "$CLI_STATUS" != 2 || "$(grep '^redist' "$CLI_ERR")" != "$want" ]]; then
            fail "$cmd --threads='$v': exit $CLI_STATUS (want 2 and '$want')"
        else echo "ok: ${cmd%% *} --threads='$v' refused"; fi
    done
done
for cmd in "run ${PAIR[*]}" "bench" "demo"; do
    mpi 2 $cmd --threads 2 --threads=3
    if [[ "$CLI_STATUS" != 2 ]] ||
        [[ "$(grep '^redist' "$CLI_ERR")" != "redist: ${cmd%% *}: --threads given twice (see redist ${cmd%% *} --help)" ]]; then
        fail "$cmd: --threads twice: exit $CLI_STATUS"
    else echo "ok: ${cmd%% *}: --threads given twice refused"; fi
    mpi 2 $cmd --threads
    if [[ "$CLI_STATUS" != 2 || "$(grep '^redist' "$CLI_ERR")" != "redist: --threads needs a value" ]]; then
        fail "$cmd --threads without a value: exit $CLI_STATUS"
    else echo "ok: ${cmd%% *}: --threads without a value refused"; fi
done

# ---- explain carries the value (text and JSON). ------------------------------------------
run_cmd "$REDIST" explain "${PAIR[@]}" --threads 3 --json
if [[ "$CLI_STATUS" == 1 ]] && grep -q "without OpenMP" "$CLI_ERR"; then
    echo "skip: the library has no OpenMP; threads > 1 are refused (REDIST_ERR_UNSUPPORTED)"
    finish
    exit 0
fi
if [[ "$CLI_STATUS" != 0 ]] ||
    [[ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["threads"])' <"$CLI_OUT")" != 3 ]]; then
    fail "explain --threads 3 --json: exit $CLI_STATUS, no \"threads\": 3"
else echo "ok: explain --json carries threads 3"; fi
run_cmd env REDIST_NUM_THREADS=4 "$REDIST" explain "${PAIR[@]}"
if ! grep -qx '  threads  4 per rank for local moves (REDIST_NUM_THREADS)' "$CLI_OUT"; then
    fail "explain under REDIST_NUM_THREADS=4: no threads line"
else echo "ok: explain reads REDIST_NUM_THREADS"; fi

# ---- run --threads 2: every element verified, the threads reported. ---------------------
# expect_run NP LINE ARGS...: run on NP ranks exits 0, verifies, and prints LINE.
expect_run() {
    local np=$1 line=$2; shift 2
    mpi "$np" run "$@" --verify --repeat 2
    if [[ "$CLI_STATUS" != 0 ]] || ! grep -q '^  verified   all [0-9]* elements correct' "$CLI_OUT"; then
        fail "run -n $np $*: exit $CLI_STATUS, not verified"
    elif ! grep -qxF -- "$line" "$CLI_OUT"; then fail "run -n $np $*: no line '$line'"
    else echo "ok: verified on $np rank(s): $*"; fi
}
T2='  threads    2 per rank for local moves (--threads)'
for np in 1 3; do
    expect_run "$np" "$T2" --from n=100000,block=3 --to n=100000,block=7 --threads 2
    expect_run "$np" "$T2" --from n=300x200,block=8x8 --to n=200x300,block=5x5 --permute 1,0 \
        --threads 2
    expect_run "$np" "$T2" --from n=40x30,block=4x4 --to n=40x30,block=5x5 --type int \
        --batch 3 --threads 2
    expect_run "$np" "$T2" --from n=90000,block=7 --to n=90000,block=9 --max-buffer 4k \
        --threads 2
done
expect_run 3 "$T2" --from n=600x600,block=8x8,grid=3x1 --to n=600x600,block=8x8,grid=1x3 \
    --relabel --threads 2
expect_run 3 "$T2" --from n=30000,block=4,procs=1 --to n=30000,block=5 --inter --threads 2
expect_run 3 "$T2" --from n=30000,block=4 --to n=30000,block=5 --alpha 2 --beta 0.5 --threads 2
mpi 3 run --from n=30000,block=4 --to n=30000,block=5 --threads 2 --verify --quiet --repeat 2
if [[ "$CLI_STATUS" != 0 ]] || ! grep -Eq ' threads=2 wrong=0$' "$CLI_OUT"; then
    fail "run --quiet --threads 2: exit $CLI_STATUS, no threads=2"
else echo "ok: run --quiet reports threads=2"; fi
# Without --threads the variable applies; --threads wins over it.
run_cmd 120 env REDIST_NUM_THREADS=3 "$MPIEXEC" -n 3 $MPIEXEC_PREFLAGS "$REDIST" run \
    --from n=30000,block=4 --to n=30000,block=5 --verify --repeat 2
if [[ "$CLI_STATUS" != 0 ]] ||
    ! grep -qx '  threads    3 per rank for local moves (REDIST_NUM_THREADS)' "$CLI_OUT"; then
    fail "run under REDIST_NUM_THREADS=3: exit $CLI_STATUS, no threads line"
else echo "ok: run reads REDIST_NUM_THREADS"; fi
run_cmd 120 env REDIST_NUM_THREADS=3 "$MPIEXEC" -n 1 $MPIEXEC_PREFLAGS "$REDIST" run \
    --from n=30000,block=4 --to n=30000,block=5 --verify --repeat 2 --threads 2
if [[ "$CLI_STATUS" != 0 ]] || ! grep -qxF "$T2" "$CLI_OUT"; then
    fail "run --threads 2 under REDIST_NUM_THREADS=3: exit $CLI_STATUS"
else echo "ok: --threads wins over REDIST_NUM_THREADS"; fi

# ---- A malformed REDIST_NUM_THREADS: every rank exits 1, rank 0 says why, no hang. -------
MSG="REDIST_NUM_THREADS='abc' is not a whole number of threads from 1 to 1024"
# Each rank runs under a shell that records its exit status (mpiexec itself would stop at
# the first rank that fails), so that the test sees every rank's.
# shellcheck disable=SC2016
run_cmd 60 env REDIST_NUM_THREADS=abc "$MPIEXEC" -n 3 $MPIEXEC_PREFLAGS bash -c \
    '"$0" "$@"; echo "rank exit $?" >&2' "$REDIST" run --from n=3000,block=4 --to n=3000,block=5 --verify
if [[ "$CLI_STATUS" == 124 ]]; then fail "run under REDIST_NUM_THREADS=abc hangs"
elif [[ "$(grep -c '^rank exit 1$' "$CLI_ERR")" != 3 ]]; then
    fail "run under REDIST_NUM_THREADS=abc: not every rank exits 1"
elif [[ "$(grep -c '^redist' "$CLI_ERR")" != 1 ]] ||
    ! grep -Eqx "redist: plan \(auto\): invalid argument \((rank [0-9]+: )?$MSG\)" "$CLI_ERR"; then
    fail "run under REDIST_NUM_THREADS=abc: not the library's one line"
else echo "ok: run under REDIST_NUM_THREADS=abc: every rank exits 1, one line"; fi
for cmd in bench demo; do
    run_cmd 60 env REDIST_NUM_THREADS=abc "$MPIEXEC" -n 2 $MPIEXEC_PREFLAGS "$REDIST" $cmd
    if [[ "$CLI_STATUS" != 1 ]] ||
        [[ "$(grep '^redist' "$CLI_ERR")" != "redist: $cmd: threads: invalid argument ($MSG)" ]]; then
        fail "$cmd under REDIST_NUM_THREADS=abc: exit $CLI_STATUS"
    else echo "ok: $cmd under REDIST_NUM_THREADS=abc exits 1 before any plan"; fi
done
# ---- the model speeds up the local moves: 8 threads predict less time than 1, and a pair
# that MPI's one-thread datatype engine moves best with one thread is packed with eight. -----
BIG=(--from "n=4000x4000,block=36,grid=1x2" --to "n=4000x4000,block=128,grid=1x2")
predicted() { # threads -> auto's predicted seconds, and its transport, from --json (a rank of
    # 8 cores: the model counts at most the cores)
    REDIST_MACHINE_FILE=/nonexistent "$REDIST" explain "${BIG[@]}" --threads "$1" --cores 8 --json |
        python3 -c 'import json,sys; d=json.load(sys.stdin); a=[r for r in d["algorithms"] if r.get("chosen")][0]; print(a["predicted_seconds"], a["transport"])'
}
read -r t1 tr1 <<<"$(predicted 1)"
read -r t8 tr8 <<<"$(predicted 8)"
if ! python3 -c "import sys; sys.exit(0 if float('$t8') < float('$t1') else 1)" 2>/dev/null ||
    [[ "$tr1" != datatype || "$tr8" != pack ]]; then
    fail "explain's model and threads: 1 thread $t1 s ($tr1), 8 threads $t8 s ($tr8)"
else echo "ok: explain predicts $t1 s ($tr1) with 1 thread, $t8 s ($tr8) with 8"; fi

run_cmd env REDIST_NUM_THREADS=abc "$REDIST" explain "${PAIR[@]}"
if [[ "$CLI_STATUS" != 1 || "$(cat "$CLI_ERR")" != "redist: plan (auto): invalid argument ($MSG)" ]]; then
    fail "explain under REDIST_NUM_THREADS=abc: exit $CLI_STATUS"
else echo "ok: explain under REDIST_NUM_THREADS=abc refuses as run's plan does"; fi

finish
