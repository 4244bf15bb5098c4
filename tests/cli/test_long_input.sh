#!/usr/bin/env bash
# No fixed limit on what a user types (docs/tool.md, "SPEC grammar"): irregular blocks
# (GEN_BLOCK) split over 64 and 1000 ranks, whose block= runs to hundreds and thousands of
# characters, long rank lists, counts written with many digits, a long --repeat and a long
# bench --procs list are read whole, and the canonical forms explain and run print are whole
# too (once, a dimension's sizes past 255 characters were a syntax error, a ranks= item
# past 127, --repeat past 63; bench took at most 16 rank counts; canonical forms were cut at
# 511 characters and rank lists at 255). A bad value inside a long one is named, and a
# message quotes at most 60 characters of what the user typed.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT
# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
mpi() { local n=$1; shift; run_cmd 120 "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "$REDIST" "$@" </dev/null; }

# sizes COUNT FIRST STEP MOD: COUNT block sizes FIRST + (i * STEP) % MOD, joined by '+'.
sizes() { python3 -c "import sys; c, f, s, m = map(int, sys.argv[1:]); print('+'.join(str(f + i * s % m) for i in range(c)))" "$@"; }
total() { python3 -c "import sys; print(sum(map(int, sys.argv[1].split('+'))))" "$1"; }

# json_check EXPR: EXPR holds over the JSON object d of explain's output.
json_check() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$CLI_OUT"; }

# GEN_BLOCK over 64 ranks (4-digit sizes: 319 characters) and 1000 ranks (3999 characters),
# explained; the canonical form lists every size, and read back it is the same layout.
for spec in "64 1000 37 100000" "1000 100 1 13"; do
    read -r count first step mod <<<"$spec"
    b=$(sizes "$count" "$first" "$step" "$mod") n=$(total "$b")
    run_cmd 60 "$REDIST" explain --from "n=$n,block=$b" --to "n=$n,block=7" --procs "$count" --json
    if [[ "$CLI_STATUS" != 0 ]]; then fail "explain, GEN_BLOCK of ${#b} characters over $count ranks: exit $CLI_STATUS"; continue; fi
    want="n=$n,block=$b,grid=$count,first=0,ranks=0-$((count - 1)),order=row"
    if json_check "d['from']['canonical'] == '$want' and d['from']['grid'] == [$count] and d['procs'] == $count"
    then echo "ok: explain reads a GEN_BLOCK of ${#b} characters over $count ranks whole"
    else fail "explain: the canonical form of the GEN_BLOCK over $count ranks is not the spec's"; fi
    run_cmd 60 "$REDIST" explain --from "$want" --to "n=$n,block=7" --procs "$count" --json
    if [[ "$CLI_STATUS" == 0 ]] && json_check "d['from']['canonical'] == '$want'"
    then echo "ok: the canonical form over $count ranks reads back as itself"
    else fail "the canonical form over $count ranks does not read back (exit $CLI_STATUS)"; fi
done

# A rank list of 1000 items (even ranks, then odd: 3889 characters in canonical form).
ranks=$(python3 -c "print(':'.join(map(str, list(range(0, 1000, 2)) + list(range(1, 1000, 2)))))")
run_cmd 60 "$REDIST" explain --from "n=5000,ranks=$ranks" --to n=5000,block=3,procs=1000 --json
if [[ "$CLI_STATUS" == 0 ]] && json_check "d['from']['ranks'] == '$ranks' and d['from']['canonical'].endswith(',ranks=$ranks,order=row')"
then echo "ok: a list of 1000 ranks is read and printed whole"
else fail "a list of 1000 ranks: exit $CLI_STATUS or not printed whole"; fi

# Counts with 300 digits (leading zeros) in n=, block=, first= and a ranks= range.
zeros=$(printf '0%.0s' {1..300})
run_cmd 30 "$REDIST" explain --from "n=${zeros}24,block=${zeros}5,procs=${zeros}3,first=${zeros}1" \
    --to "n=24,ranks=${zeros}2-${zeros}0" --json
if [[ "$CLI_STATUS" == 0 ]] && json_check "d['from']['canonical'] == 'n=24,block=5,grid=3,first=1,ranks=0-2,order=row' and d['to']['ranks'] == '2:1:0'"
then echo "ok: counts of 300 digits"
else fail "counts of 300 digits: exit $CLI_STATUS"; fi

# A bad size deep in a long list is named; long bad text is quoted in part.
long_b="$(sizes 200 100 1 7)+q+$(sizes 10 1 1 3)"
expect_usage "^redist: --from: block: 'q' is not a block size >= 0$" \
    "$REDIST" explain --from "n=99999,block=$long_b" --to n=99999 --procs 211
key=$(printf 'k%.0s' {1..500})
run_cmd 30 "$REDIST" explain --from "n=10,$key=1" --to n=10 --procs 2
shown=$(printf 'k%.0s' {1..60})
if [[ "$CLI_STATUS" == 2 && "$(cat "$CLI_ERR")" == "redist: --from: unknown key '$shown...' (keys: n, block, procs, grid, first, ranks, order, boxes, pencil, slab, brick)" ]]
then echo "ok: an unknown key of 500 characters is quoted in part"
else fail "unknown key of 500 characters: exit $CLI_STATUS, $(cat "$CLI_ERR")"; fi

# Under MPI: run verifies a GEN_BLOCK over 64 ranks; the 1000-rank spec parses on 2 ranks
# (its ranks are then too many, which is what run says); a long --repeat is read.
b=$(sizes 64 1000 37 100000) n=$(total "$b")
mpi 64 run --from "n=$n,block=$b" --to "n=$n,block=5" --repeat 1 --verify
if [[ "$CLI_STATUS" == 0 ]] && grep -q "^  verified   all $n elements correct$" "$CLI_OUT" &&
    grep -Fqx "  from       n=$n,block=$b,grid=64,first=0,ranks=0-63,order=row" "$CLI_OUT"
then echo "ok: run verifies a GEN_BLOCK over 64 ranks and prints it whole"
else fail "run, GEN_BLOCK over 64 ranks: exit $CLI_STATUS"; fi
b=$(sizes 1000 100 1 13) n=$(total "$b")
mpi 2 run --from "n=$n,block=$b,procs=1000" --to "n=$n,block=5"
if [[ "$CLI_STATUS" != 0 ]] && grep -q "^redist: --from: uses rank 999 but " "$CLI_ERR"
then echo "ok: run reads a GEN_BLOCK over 1000 ranks"
else fail "run, GEN_BLOCK over 1000 ranks: exit $CLI_STATUS, $(grep '^redist' "$CLI_ERR")"; fi
mpi 2 run --from n=1000,block=3 --to n=1000,block=7 --repeat "${zeros}2x${zeros}3" --verify --quiet
if [[ "$CLI_STATUS" == 0 ]] && grep -q "^algorithm=[a-z-]* n1=2 n2=3 .* wrong=0$" "$CLI_OUT"
then echo "ok: --repeat of 605 characters"
else fail "--repeat of 605 characters: exit $CLI_STATUS"; fi

# bench takes a --procs list of any length (checked against the launch before it runs).
mpi 1 bench --procs "$(printf '1,%.0s' {1..40})2"
if [[ "$CLI_STATUS" == 2 ]] && grep -q "^redist: bench: --procs 2: only 1 ranks were started" "$CLI_ERR"
then echo "ok: bench reads a --procs list of 41 counts"
else fail "bench --procs of 41 counts: exit $CLI_STATUS, $(grep '^redist' "$CLI_ERR")"; fi
finish
