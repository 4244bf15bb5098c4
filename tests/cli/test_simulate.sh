#!/usr/bin/env bash
# redist simulate on hostile and large values: every bad value exits 2 with one stderr line
# naming its option, quickly and in bounded memory; valid runs print finite, non-negative
# times (docs/tool.md, "redist simulate").
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
for opt in --procs --K --bytes --Td --tau --d --from --to; do
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

finish
