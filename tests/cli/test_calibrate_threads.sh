#!/usr/bin/env bash
# copy_thread_limit: calibrate --threads 2 times the library's local moves at 1 and 2
# threads, prints each with its speedup and the fitted L, and writes copy_thread_limit >= 1
# with the other parameters; without --threads it keeps the value plans read; a bad --threads
# is a usage error. A machine file whose copy_thread_limit is below 1 or not a number is
# ignored as a whole, as for any other bad value (explain says so), and so is such a
# REDIST_MACHINE_COPY_THREAD_LIMIT. Predictions use the machine's L: at L = 1 threads change
# nothing, at L = 6.5 eight threads predict less (on ranks of 8 cores: --cores 8). Threads
# beyond a rank's cores take turns, which L must not absorb: calibrate times at most the cores
# (its ranks unbound here: Open MPI binds each of 2 ranks to one core), and on one core per
# rank (taskset -c 0) it keeps L and says why.
# MPIEXEC_PREFLAGS is a list of flags, split on purpose.
# shellcheck disable=SC2086
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
# 2 ranks x 2 threads on the 2 cores of CI: spinning OpenMP threads would starve the ranks.
export OMP_WAIT_POLICY=passive
unset REDIST_NUM_THREADS REDIST_MACHINE_COPY_THREAD_LIMIT
# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
mpi() { local n=$1; shift; run_cmd 240 "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "$REDIST" "$@"; }
# each rank may run on every core (MPICH's hydra binds none by default)
UNBOUND=()
[[ "${REDIST_MPI:-openmpi}" == openmpi ]] && UNBOUND=(--bind-to none)
unbound() { local n=$1; shift; run_cmd 240 "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "${UNBOUND[@]}" "$REDIST" "$@"; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT
value() { awk -v k="$1" '$1 == k {print $3}' "$2"; }
PAIR=(--from n=1M,block=2,procs=4 --to n=1M,block=8)

# The library may be built without OpenMP: threads > 1 are refused, L is then not measured.
openmp=1
mpi 1 run --from n=48,block=2,procs=1 --to n=48,block=6 --threads 2
grep -q "without OpenMP" "$CLI_ERR" && openmp=0

unbound 2 calibrate --quick --threads 2 --output "$TMP/machine"
limit=$(value copy_thread_limit "$TMP/machine")
if [[ "$CLI_STATUS" != 0 ]]; then fail "calibrate --quick --threads 2: exit $CLI_STATUS"
elif ! python3 -c "import sys; sys.exit(0 if 1 <= float(sys.argv[1]) < 1e6 else 1)" "${limit:-x}"
then fail "machine file: copy_thread_limit '$limit' is not a number >= 1"
elif [[ "$openmp" == 0 ]]; then
    if grep -Eq "copy thread limit +not measured .*OpenMP" "$CLI_OUT"
    then echo "skip: no OpenMP; calibrate says so and writes copy_thread_limit $limit"
    else fail "calibrate --threads without OpenMP: no reason given"; fi
elif grep -Eq "^  1 thread +[0-9.]+ [mun]?s per execute" "$CLI_OUT" &&
    grep -Eq "^  2 threads +[0-9.]+ [mun]?s: speedup [0-9.]+ \(fitted [0-9.]+\)$" "$CLI_OUT" &&
    grep -Eq "^  copy thread limit +L = [0-9.e+]+: " "$CLI_OUT"
then echo "ok: calibrate --threads 2 prints each thread count and L, writes copy_thread_limit = $limit"
else fail "calibrate --threads 2: lines missing"; fi

# One core per rank: threads cannot speed up its moves there; L is kept, and calibrate says why.
printf 'copy_thread_limit = 3.5\n' >"$TMP/l35"
REDIST_MACHINE_FILE="$TMP/l35" run_cmd 240 taskset -c 0 "$MPIEXEC" -n 2 $MPIEXEC_PREFLAGS \
    "${UNBOUND[@]}" "$REDIST" calibrate --quick --threads 2 --output "$TMP/one-core"
if [[ "$CLI_STATUS" == 0 && "$(value copy_thread_limit "$TMP/one-core")" == 3.5 ]] &&
    grep -Eq "copy thread limit +not measured \(a rank may run on 1 core.*\): L = 3.5 kept" "$CLI_OUT" &&
    ! grep -Eq "^  2 threads " "$CLI_OUT"
then echo "ok: calibrate --threads 2 on one core per rank keeps L = 3.5, saying why"
else fail "calibrate --threads 2 on one core per rank: exit $CLI_STATUS, L $(value copy_thread_limit "$TMP/one-core")"; fi

# The file's L reaches explain's JSON machine object.
REDIST_MACHINE_FILE="$TMP/machine" run_cmd 30 "$REDIST" explain "${PAIR[@]}" --json
if [[ "$CLI_STATUS" == 0 ]] && python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['machine']
assert m['source'] == sys.argv[2] and m['copy_thread_limit'] == float(sys.argv[3]), m" \
    "$CLI_OUT" "$TMP/machine" "$limit"
then echo "ok: explain --json reports copy_thread_limit from the file"
else fail "explain --json: machine.copy_thread_limit is not the file's $limit"; fi

# Without --threads, calibrate keeps the L plans read now (here 3.5 from the file).
printf 'copy_thread_limit = 3.5\n' >"$TMP/kept"
REDIST_MACHINE_FILE="$TMP/kept" mpi 2 calibrate --quick --output "$TMP/again"
if [[ "$CLI_STATUS" == 0 && "$(value copy_thread_limit "$TMP/again")" == 3.5 ]] &&
    grep -Eq "copy thread limit +not measured \(--threads N measures it\): L = 3.5 kept" "$CLI_OUT"
then echo "ok: calibrate without --threads keeps copy_thread_limit 3.5"
else fail "calibrate without --threads: copy_thread_limit '$(value copy_thread_limit "$TMP/again")'"; fi

for v in 0 -1 abc 2.5; do
    mpi 2 calibrate --quick --no-write --threads "$v"
    if [[ "$CLI_STATUS" == 2 ]] && grep -q "^redist: --threads: expected a whole number" "$CLI_ERR"
    then echo "ok: calibrate --threads '$v' refused"
    else fail "calibrate --threads '$v': exit $CLI_STATUS"; fi
done

# A bad value refuses the whole file (the defaults, and why); the environment's is ignored.
for v in 0.5 -1 abc 0; do
    printf 'startup = 7e-6\ncopy_thread_limit = %s\n' "$v" >"$TMP/bad"
    REDIST_MACHINE_FILE="$TMP/bad" run_cmd 30 "$REDIST" explain "${PAIR[@]}"
    if [[ "$CLI_STATUS" == 0 ]] &&
        grep -Fq "defaults ($TMP/bad ignored: line 2: 'copy_thread_limit' needs a number >= 1)" "$CLI_OUT"
    then echo "ok: a machine file with copy_thread_limit = $v is ignored"
    else fail "machine file with copy_thread_limit = $v: not refused"; fi
    REDIST_MACHINE_COPY_THREAD_LIMIT="$v" REDIST_MACHINE_FILE="$TMP/none" run_cmd 30 "$REDIST" explain "${PAIR[@]}"
    if grep -Fq "(REDIST_MACHINE_COPY_THREAD_LIMIT ignored: not a number >= 1)" "$CLI_OUT"
    then echo "ok: REDIST_MACHINE_COPY_THREAD_LIMIT=$v ignored"
    else fail "REDIST_MACHINE_COPY_THREAD_LIMIT=$v: not ignored"; fi
done

# Predictions: L = 1, threads predict as one; the default 6.5, eight threads predict less.
predicted() { # FILE THREADS: auto's predicted seconds
    REDIST_MACHINE_FILE="$1" run_cmd 30 "$REDIST" explain "${PAIR[@]}" --threads "$2" --cores 8 --json
    python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['predicted_seconds'])" "$CLI_OUT"
}
if [[ "$openmp" == 1 ]]; then
    printf 'copy_thread_limit = 1\n' >"$TMP/one"
    one1=$(predicted "$TMP/one" 1) one8=$(predicted "$TMP/one" 8)
    def1=$(predicted "$TMP/none" 1) def8=$(predicted "$TMP/none" 8)
    if [[ -n "$one1" && "$one1" == "$one8" ]] &&
        python3 -c "import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if b < a else 1)" "$def1" "$def8"
    then echo "ok: L = 1: 8 threads predict as 1 ($one1 s); L = 6.5: $def8 s < $def1 s"
    else fail "predictions ignore copy_thread_limit: L=1: $one1, $one8; default: $def1, $def8"; fi
else echo "skip: no OpenMP, explain --threads 8 is refused"; fi
finish
