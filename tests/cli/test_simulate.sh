#!/usr/bin/env bash
# redist simulate on hostile and large values: every bad value exits 2 with one stderr line
# naming its option, quickly and in bounded memory; valid runs print finite, non-negative
# times (docs/tool.md, "redist simulate"). The node mode (--nodes ...): the same for its
# options, its limits, a row per nodes x bytes, 1024 nodes x 64 ranks of the all-to-all in
# under a second, and its predictions equal to explain's on the real layouts.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SIM=("$REDIST" simulate) # timeout runs commands, not functions

# bad OPTION VALUE [OTHER ARGS...]: OPTION VALUE is refused, the message names OPTION and,
# on a single line, says what the value must be.
bad() {
    local opt=$1 val=$2; shift 2
    expect_usage "^redist simulate: $opt: bad value '.*': must be " "${SIM[@]}" "$@" "$opt" "$val"
    if [[ $(wc -l <"$CLI_ERR") -ne 1 || -s "$CLI_OUT" ]]; then
        fail "not one stderr line and no stdout: $opt $val $*"
    fi
}

# Every option: not a number, trailing junk, empty, NaN, infinities, out of range, overflow.
for opt in --procs --K --bytes --Td --tau --d --from --to --nodes --ranks-per-node --pattern \
    --remote-startup --remote-per-byte --machine; do
    for val in abc 12x 1.2.3 '' ' 5' nan NaN -nan inf -inf infinity -1 -5e3 \
        99999999999999999999999 -99999999999999999999999 1e999 -1e999 0x; do
        bad "$opt" "$val"
    done
    # --opt=VALUE is the same as --opt VALUE; the message is still one line.
    expect_usage "^redist simulate: $opt: bad value 'x': " "${SIM[@]}" "$opt=x"
    # A missing value: the option last, alone or after others.
    expect_usage "^redist simulate: $opt: missing value$" "${SIM[@]}" "$opt"
    expect_usage "^redist simulate: $opt: missing value$" "${SIM[@]}" --procs 64 "$opt"
done

# Zero where it is invalid, and values just past each limit.
bad --procs 0
bad --procs 2147483648
bad --procs 99999999999 --K 2 # was: negative times, exit 0
bad --procs 1e3               # an integer, not a real
bad --procs 3.0
bad --K 0
bad --K 2147483648 --procs 2147483647
bad --bytes 0
bad --bytes 0.1
bad --bytes 1e300
bad --bytes 1.0000001e9
bad --Td 1.5
bad --Td 1e-400 # underflow (ERANGE)
bad --tau 0
bad --tau 1e-16
bad --tau 2
bad --d 63
bad --d 2.5
bad --from 0
bad --from 1.5
bad --from 9007199254740994
bad --from 1e300
bad --to 0
bad --to 2e16
bad --to 1e300 --from 1

# Values that conflict: each names the option at fault and the bound.
expect_usage "^redist simulate: --K: bad value '200': must be an integer in \[1, P = 128\]" \
    "${SIM[@]}" --K 200
expect_usage "^redist simulate: --K: bad value '128' \(the default\): .*\[1, P = 64\]" \
    "${SIM[@]}" --procs 64
expect_usage "^redist simulate: --K: bad value '3': .*\[1, P = 2\]" "${SIM[@]}" --procs 2 --K 3
expect_usage "^redist simulate: --to: bad value '10': .*\[--from = 1024, 2\^53\]" "${SIM[@]}" --to 10
expect_usage "^redist simulate: --to: bad value '1073741824' \(the default\): " \
    "${SIM[@]}" --from 4e9
expect_usage "^redist simulate: --d: bad value '8': .*\[0, L = 7\]" "${SIM[@]}" --d 8
expect_usage "^redist simulate: --d: bad value '2': .*\[0, L = 1\]" "${SIM[@]}" --procs 4 --K 2 --d 2
expect_usage "^redist simulate: --d: bad value '1': .*\[0, L = 0\]" "${SIM[@]}" --procs 7 --K 1 --d 1
expect_usage "^redist simulate: --d: bad value 'AUTO': " "${SIM[@]}" --d AUTO
# A value that is another option is a bad value, not a missing one.
expect_usage "^redist simulate: --procs: bad value '--K': " "${SIM[@]}" --procs --K 4

# Not an option.
expect_usage "^redist simulate: unknown option 'foo'" "${SIM[@]}" foo
expect_usage "^redist simulate: unknown option '--procsx'" "${SIM[@]}" --procsx 4
expect_usage "^redist simulate: unknown option '--k'" "${SIM[@]}" --k 4
expect_usage "^redist simulate: unknown option '-P'" "${SIM[@]}" -P 4

# sane_run ARGS...: exit 0 within 10 s, a table and the five crossover lines, and no NaN,
# infinity or negative number anywhere in the output.
sane_run() {
    run_cmd 10 "$REDIST" simulate "$@"
    if [[ "$CLI_STATUS" != 0 ]]; then fail "exit $CLI_STATUS (want 0): simulate $*"
    elif [[ -s "$CLI_ERR" ]]; then fail "stderr not empty: simulate $*"
    elif grep -Eqi 'nan|inf' "$CLI_OUT"; then fail "NaN or infinity: simulate $*"
    elif grep -Eq -- '(^|[ =(])-($|[0-9. ])' "$CLI_OUT"; then fail "negative or missing time: simulate $*"
    elif [[ $(grep -c 'no crossover\|direct beats indirect above N = [0-9]' "$CLI_OUT") -ne 5 ]]; then
        fail "not five crossover lines: simulate $*"
    elif ! grep -Eq '^ +[0-9]+ +[0-9.]+ [num]?s ' "$CLI_OUT"; then fail "no table row: simulate $*"
    else echo "ok: sane output: simulate $*"; fi
}

sane_run
sane_run --d auto
sane_run --procs 1 --K 1
sane_run --procs 2 --K 2 --d auto
sane_run --procs 7 --K 1 --d auto
sane_run --procs 9 --K 6 --d 1 --from 1 --to 1
sane_run --procs=64 --K=12 --bytes=8 --Td=0 --tau=1e-15 --d=auto --from=1e3 --to=1e9
sane_run --Td -0 --tau 1 --bytes 0.125
# Large P and K: closed-form step counts, no tables (the first was killed at 24 GB).
sane_run --procs 2147483647 --K 2
sane_run --procs 1000000 --K 1000 --d auto
sane_run --procs 2147483647 --K 2147483647 --d auto --from 1 --to 9007199254740992
sane_run --procs 2147483646 --K 1073741823 --d auto
sane_run --procs 2147483647 --K 1 --bytes 1e9 --Td 1 --tau 1 --from 9007199254740992 \
    --to 9007199254740992
sane_run --procs 1048576 --K 65536 --d 0
# Bounded memory: the largest P and K in a few MB (measured where GNU time is installed).
if /usr/bin/time -f %M true 2>/dev/null; then
    run_cmd 10 /usr/bin/time -f 'maxrss %M' "${SIM[@]}" --procs 2147483647 \
        --K 2147483647 --d auto
    kb=$(sed -n 's/^maxrss \([0-9]*\)$/\1/p' "$CLI_ERR")
    if [[ "$CLI_STATUS" == 0 && -n "$kb" && "$kb" -lt 65536 ]]; then
        echo "ok: P = K = 2^31 - 1 in $kb kB"
    else fail "P = K = 2^31 - 1: exit $CLI_STATUS, max RSS '${kb}' kB (want < 64 MB)"; fi
else echo "skip: no GNU time for the memory check"; fi

# Step counts for [LBP96]'s R_x(6, 9) (Fig. 8-10): direct 6, indirect 4, hybrid d = 1: 4.
run_cmd "$REDIST" simulate --procs 9 --K 6 --d 1
if grep -Eq '^ +\(steps\) +6 +4 +4 ' "$CLI_OUT"; then echo "ok: R_x(6, 9) steps 6 4 4"
else fail "R_x(6, 9) steps are not 6 4 4"; fi
# The default d = 2 is lowered to L where there are fewer shift steps (K = 2, P = 4: L = 1).
run_cmd "$REDIST" simulate --procs 4 --K 2
if [[ "$CLI_STATUS" == 0 ]] && grep -Eq '^ +\(steps\) +2 +2 +2 ' "$CLI_OUT"; then
    echo "ok: default d lowered to L"
else fail "default d with K = 2, P = 4"; fi

# ---- the node mode -------------------------------------------------------------------------
# Zero, past the limits, malformed LISTs, and options of the other mode.
bad --nodes 1
bad --nodes 2097152
bad --nodes 8..2
bad --nodes 2..
bad --nodes ..8
bad --nodes 2...8
bad --nodes 2,,4
bad --nodes 2,
bad --nodes "$(seq -s, 2 34)" # 33 values
bad --ranks-per-node 0
bad --ranks-per-node 2^20
bad --bytes 0 --nodes 2
bad --bytes 0.5 --nodes 2
bad --bytes 2^31 --nodes 2
bad --bytes 64..2^40 --ranks-per-node 4
bad --pattern alltoall,alltoall
bad --pattern all
bad --pattern alltoall,
bad --machine this
bad --remote-startup 2
bad --remote-per-byte -1e-9
expect_usage "^redist simulate: --nodes: bad value '2\^20': .*at most 2\^20" \
    "${SIM[@]}" --nodes 2^20 --ranks-per-node 2
expect_usage "^redist simulate: --nodes: bad value '4096': .*for cyclic" "${SIM[@]}" --nodes 4096
expect_usage "^redist simulate: --bytes: bad value '2\^30': .*below 2\^63 bytes \(P = 1048576\)" \
    "${SIM[@]}" --nodes 2^14 --bytes 2^30 --pattern alltoall
expect_usage "^redist simulate: --bytes: bad value '8,2\^23': .*P = 1048576" \
    "${SIM[@]}" --nodes 2^13 --ranks-per-node 128 --pattern alltoall --bytes 8,2^23
expect_usage "^redist simulate: --procs does not go with --nodes" "${SIM[@]}" --procs 8 --nodes 2
expect_usage "^redist simulate: --K does not go with --csv" "${SIM[@]}" --csv --K 2
expect_usage "^redist simulate: --csv: takes no value" "${SIM[@]}" --csv=1
expect_usage "^redist: simulate: --csv given twice" "${SIM[@]}" --csv --csv

# sane_nodes ROWS ARGS...: exit 0 within 30 s, ROWS table rows, the summary, no NaN,
# infinity or negative time.
sane_nodes() {
    local rows=$1; shift
    run_cmd 30 "$REDIST" simulate "$@"
    local got
    got=$(grep -Ec '^ +[0-9]+ +[0-9]+ +[0-9]+ [KM]?i?B ' "$CLI_OUT")
    if [[ "$CLI_STATUS" != 0 ]]; then fail "exit $CLI_STATUS (want 0): simulate $*"
    elif [[ -s "$CLI_ERR" ]]; then fail "stderr not empty: simulate $*"
    elif grep -Eqi 'nan|inf' "$CLI_OUT"; then fail "NaN or infinity: simulate $*"
    elif grep -Eq -- '(^|[ =(])-[0-9. ]' "$CLI_OUT"; then fail "negative time: simulate $*"
    elif [[ "$got" != "$rows" ]]; then fail "$got table rows (want $rows): simulate $*"
    elif ! grep -q '^auto within 15% of the best prediction in every row: yes' "$CLI_OUT"; then
        fail "no summary, or auto more than 15% off: simulate $*"
    else echo "ok: $rows rows: simulate $*"; fi
}
sane_nodes 100 --ranks-per-node 64 # the defaults: 2..1024 nodes x 5 sizes x 2 patterns
sane_nodes 4 --nodes 2,3 --ranks-per-node 1 --bytes 1,2^30 --pattern cyclic
sane_nodes 6 --nodes 2..8 --ranks-per-node 3 --bytes 7,1k --pattern alltoall --machine current
sane_nodes 1 --nodes 2^19 --ranks-per-node 2 --bytes 1 --pattern alltoall --remote-startup 0 \
    --remote-per-byte 0
sane_nodes 1 --nodes 2^13 --ranks-per-node 128 --bytes 8388607 --pattern alltoall
sane_nodes 1 --nodes 1024 --bytes 1M --pattern cyclic --remote-startup=1 --remote-per-byte=1

# 1024 nodes x 64 ranks of the all-to-all, described: well under a second.
start=$(date +%s%N)
run_cmd 10 "$REDIST" simulate --nodes 1024 --pattern alltoall
ms=$((($(date +%s%N) - start) / 1000000))
if [[ "$CLI_STATUS" == 0 && "$ms" -lt 1000 ]] && grep -q '^ *1024 *65536 *1 MiB ' "$CLI_OUT"; then
    echo "ok: alltoall at 65536 ranks in $ms ms"
else fail "alltoall at 65536 ranks: exit $CLI_STATUS in $ms ms"; fi

# CSV: a header and a line per row, 13 fields.
run_cmd 30 "$REDIST" simulate --nodes 2,4 --bytes 8,64,512 --csv
if [[ "$CLI_STATUS" == 0 && $(wc -l <"$CLI_OUT") == 13 ]] &&
    awk -F, 'NF != 13 { bad = 1 } END { exit bad }' "$CLI_OUT" &&
    head -n 1 "$CLI_OUT" | grep -q '^pattern,nodes,ranks_per_node,ranks,bytes,direct_async,'; then
    echo "ok: CSV rows"
else fail "CSV: exit $CLI_STATUS"; fi

# The network's parameters reach the flat predictions (and nothing else of the machine).
run_cmd 30 "$REDIST" simulate --nodes 8 --bytes 64 --pattern alltoall --csv
with=$(sed -n 2p "$CLI_OUT" | cut -d, -f6)
run_cmd 30 "$REDIST" simulate --nodes 8 --bytes 64 --pattern alltoall --csv --remote-startup 0 \
    --remote-per-byte 0
without=$(sed -n 2p "$CLI_OUT" | cut -d, -f6)
if awk -v a="$with" -v b="$without" 'BEGIN { exit !(a > b && b > 0) }'; then
    echo "ok: the network costs direct-async $with s against $without s"
else fail "network: direct-async $with s with, $without s without"; fi
run_cmd 30 env REDIST_MACHINE_STARTUP=7e-6 "$REDIST" simulate --nodes 8 --machine current
if grep -q 'startup = 7e-06 s' "$CLI_OUT"; then echo "ok: --machine current reads the environment"
else fail "--machine current: no startup = 7e-06"; fi

# The predictions are the algorithms' own: explain on the real layouts (doubles, so m = 8) on
# the same virtual nodes gives the same seconds for direct-async, alltoallv and node-aware,
# and the same choice of auto.
for nk in 2x1 3x4 5x2 4x3; do
    n=${nk%x*} k=${nk#*x} p=$((${nk%x*} * ${nk#*x}))
    for pat in alltoall cyclic; do
        if [[ $pat == alltoall ]]; then
            from="n=${p}x${p},block=1x${p},grid=${p}x1" to="n=${p}x${p},block=${p}x1,grid=1x${p}"
        else from="n=$((3 * p)),block=1" to="n=$((3 * p)),block=3"; fi
        run_cmd 30 env REDIST_MACHINE_FILE=/nonexistent "$REDIST" explain --from "$from" \
            --to "$to" --type double --nodes "$n" --ranks-per-node "$k" --json
        cp "$CLI_OUT" "$CLI_OUT.json"
        run_cmd 30 "$REDIST" simulate --nodes "$n" --ranks-per-node "$k" --bytes 8 \
            --pattern "$pat" --csv
        if python3 - "$CLI_OUT.json" "$CLI_OUT" <<'PY'; then echo "ok: $pat on $nk: explain's predictions"
import csv, json, sys
ex = json.load(open(sys.argv[1]))
row = list(csv.DictReader(open(sys.argv[2])))[0]
want = {a["name"]: a.get("predicted_seconds") for a in ex["algorithms"]}
for name, col in (("direct-async", "direct_async"), ("alltoallv", "alltoallv"),
                  ("node-aware", "node_aware")):
    assert abs(want[name] - float(row[col])) <= 1e-6 * want[name], (name, want[name], row[col])
assert ex["algorithm"] == row["auto"], (ex["algorithm"], row["auto"])
assert abs(ex["predicted_seconds"] - float(row["auto_seconds"])) <= 1e-6 * ex["predicted_seconds"]
PY
        else fail "$pat on $nk: simulate and explain differ"; fi
        rm -f "$CLI_OUT.json"
    done
done

finish
