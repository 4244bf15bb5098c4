#!/usr/bin/env bash
# Extents and blocks near 2^62..2^63: the commands below must not hang or print negative
# sizes; specs past the limits exit 2 naming the field; enormous patterns are
# refused at once (exit 1, out of memory, naming the dimension); JSON sizes are exact integers.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
EXPLAIN=("$REDIST" explain)

# A negative number anywhere but inside a rank range ("ranks=0-3") or a name ("direct-async").
NEGATIVE='(^|[[:space:](=:,])-[0-9]'

# now_ms: milliseconds since the epoch.
now_ms() { date +%s%3N; }

# expect_fast_ok SECONDS CMD...: CMD exits 0 within SECONDS and prints no negative number.
expect_fast_ok() {
    local t=$1; shift
    run_cmd "$t" "$@"
    if [[ "$CLI_STATUS" != 0 ]]; then fail "exit $CLI_STATUS (want 0 within ${t} s): $*"
    elif grep -Eq -- "$NEGATIVE" "$CLI_OUT"; then
        fail "negative number in the output: $(grep -E -- "$NEGATIVE" "$CLI_OUT" | head -3)"
    else echo "ok: exit 0 within ${t} s, no negative numbers: $*"; fi
}

# json_check PYTHON-EXPR DESCRIPTION: evaluates EXPR with d = the JSON object in $CLI_OUT.
json_check() {
    local expr=$1 what=$2
    if python3 - "$CLI_OUT" "$expr" <<'EOF'; then echo "ok: $what"; else fail "$what"; fi
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  not JSON:", e)
    sys.exit(1)
isint = lambda v: isinstance(v, int) and not isinstance(v, bool)
if not eval("(" + sys.argv[2] + ")"):
    print("  false:", sys.argv[2])
    for k in ("elements", "element_bytes", "array_bytes", "total_bytes", "max_bytes_per_rank"):
        print("  %s = %r" % (k, d.get(k)))
    print("  pattern =", d.get("pattern"))
    sys.exit(1)
EOF
}

# ---- Block 2^62 planned at once, sizes right. ---------------------------------------------
expect_fast_ok 20 "${EXPLAIN[@]}" --from n=100,block=2^62,procs=4 --to n=100,block=3
if grep -Eq '^ +[0-9]+ messages and [0-9]+ B cross between ranks, [0-9]+ B stay' "$CLI_OUT"; then
    sent=$(sed -nE 's/^ +[0-9]+ messages and ([0-9]+) B cross.*/\1/p' "$CLI_OUT")
    kept=$(sed -nE 's/.*cross between ranks, ([0-9]+) B stay.*/\1/p' "$CLI_OUT")
    if [[ $((sent + kept)) == 800 ]]; then echo "ok: block 2^62: $sent B sent + $kept B kept = 800 B"
    else fail "block 2^62: $sent B sent + $kept B kept != 800 B"; fi
else fail "block 2^62: no 'N messages and X B cross between ranks, Y B stay' line"; fi
run_cmd 20 "${EXPLAIN[@]}" --from n=100,block=2^62,procs=4 --to n=100,block=3 --json
json_check 'd["pattern"]["total_bytes"] + d["pattern"]["bytes_copied"] == 800 and
            d["elements"] == 100 and d["from"]["block"] == [2**62] and
            all(a.get("total_bytes", 0) >= 0 and a.get("max_bytes_per_rank", 0) >= 0
                for a in d["algorithms"])' \
    "block 2^62 --json: 800 bytes in all, no negative sizes"
# The same with the largest block there is.
expect_fast_ok 20 "${EXPLAIN[@]}" --from n=100,block=9223372036854775807,procs=4 \
    --to n=100,block=3

# ---- 2^62 doubles are 2^63 bytes (exit 2 naming n); chars work. ---------------------------
expect_usage '(^|[^a-z])n: ' "${EXPLAIN[@]}" --from n=2^62 --to n=2^62,block=3 --procs 2
expect_usage '(^|[^a-z])n: ' "${EXPLAIN[@]}" --from n=2^61 --to n=2^61,block=3 --procs 2 \
    --type double3
expect_fast_ok 20 "${EXPLAIN[@]}" --from n=2^62 --to n=2^62,block=3 --procs 2 --type char
if grep -q ' PB' "$CLI_OUT"; then echo "ok: 2^62 chars reported in PB"
else fail "2^62 chars: no PB sizes"; fi
run_cmd 20 "${EXPLAIN[@]}" --from n=2^62 --to n=2^62,block=3 --procs 2 --type char --json
json_check 'd["pattern"]["total_bytes"] + d["pattern"]["bytes_copied"] == 2**62 and
            d["elements"] == 2**62 and isint(d["total_bytes"]) and d["total_bytes"] > 0' \
    "2^62 chars --json: exact pattern bytes, 2^62 in all"

# ---- JSON sizes are exact integers (a big but valid case). ---------------------------------
run_cmd 20 "${EXPLAIN[@]}" --from n=2^40 --to n=2^40,block=3 --procs 2 --type char --json
if [[ "$CLI_STATUS" != 0 ]]; then fail "n=2^40 --json: exit $CLI_STATUS"; fi
json_check 'isint(d["elements"]) and d["elements"] == 2**40 and isint(d["element_bytes"]) and
            isint(d["total_bytes"]) and isint(d["max_bytes_per_rank"]) and
            all(isint(v) for v in d["pattern"].values()) and
            d["pattern"]["total_bytes"] + d["pattern"]["bytes_copied"] == 2**40' \
    "n=2^40 --json: integer element and pattern sizes adding up to 2^40"
json_check 'isint(d["array_bytes"]) and d["array_bytes"] == 2**40' \
    "n=2^40 --json: array_bytes is the integer 2^40"
run_cmd 20 "${EXPLAIN[@]}" --from n=2^62 --to n=2^62,block=3 --procs 2 --type char --json
json_check 'isint(d["array_bytes"]) and d["array_bytes"] == 2**62' \
    "n=2^62 chars --json: array_bytes is the integer 2^62"

# ---- Extents past 2^62: exit 2 naming n. ---------------------------------------------------
for n in 9223372036854775807 4611686018427387905 9223372036854775808 2^63 2^64 99999999999999999999; do
    expect_usage '(^|[^a-z])n: ' "${EXPLAIN[@]}" --from "n=$n" --to n=100 --procs 2
    expect_usage '(^|[^a-z])n: ' "${EXPLAIN[@]}" --from n=100 --to "n=$n" --procs 2
done
expect_usage '(^|[^a-z])n: ' "${EXPLAIN[@]}" --from n=2^31x2^31x2 --to n=2^31x2^31x2 --procs 2 \
    --type char
expect_usage '(^|[^a-z])n: ' "${EXPLAIN[@]}" --from n=2^40x2^40 --to n=2^40x2^40 --procs 2 \
    --type char
expect_fast_ok 20 "${EXPLAIN[@]}" --from n=2^31x2^31,block=1x2^40,grid=2x1 \
    --to n=2^31x2^31,block=3x2^31,grid=1x2 --type char

# ---- Blocks past INT64_MAX: exit 2 naming block. -------------------------------------------
for b in 2^63 9223372036854775808 2^64 99999999999999999999; do
    expect_usage '(^|[^a-z])block: ' "${EXPLAIN[@]}" --from "n=100,block=$b" --to n=100 --procs 2
    expect_usage '(^|[^a-z])block: ' "${EXPLAIN[@]}" --from n=100 --to "n=100,block=$b" --procs 2
done
expect_usage '(^|[^a-z])block: ' "${EXPLAIN[@]}" --from n=100,block=2^63 --to n=100,block=3 \
    --procs 4

# ---- Enormous patterns: exit 1 at once, out of memory, naming the dimension. ----------------
# expect_nomem DIM CMD...: exits 1 within 10 s, stderr says out of memory and names DIM.
expect_nomem() {
    local dim=$1; shift
    local t0; t0=$(now_ms)
    run_cmd 20 "$@"
    local ms=$(($(now_ms) - t0))
    if [[ "$CLI_STATUS" != 1 ]]; then fail "exit $CLI_STATUS (want 1) after $ms ms: $*"
    elif ((ms > 10000)); then fail "took $ms ms (want < 10 s): $*"
    elif ! grep -q 'out of memory' "$CLI_ERR"; then fail "stderr does not say 'out of memory': $*"
    elif ! grep -q "$dim" "$CLI_ERR"; then fail "stderr does not name '$dim': $*"
    else echo "ok: out of memory, $dim, in $ms ms: $*"; fi
}
expect_nomem "dimension 0" "${EXPLAIN[@]}" --from n=2^62,block=2^40,procs=4 \
    --to n=2^62,block=3 --type char

# ---- One block per process against cyclic: regular sections, planned at once. --------------
for args in "--from n=2^62,block=9223372036854775807 --to n=2^62,block=3 --procs 2" \
    "--from n=2^62,block=2^62,procs=4 --to n=2^62,block=3" \
    "--from n=2^62,block=1,procs=3 --to n=2^62,block=2^60,procs=4"; do
    # shellcheck disable=SC2086
    expect_fast_ok 10 "${EXPLAIN[@]}" $args --type char --json
    json_check 'd["pattern"]["total_bytes"] + d["pattern"]["bytes_copied"] == 2**62' \
        "sections: 2^62 bytes in all: $args"
done
expect_fast_ok 10 "${EXPLAIN[@]}" --from n=4x2^60,block=1x9223372036854775807,grid=2x2 \
    --to n=4x2^60,block=2x7,grid=2x2 --type char --json
json_check 'd["pattern"]["total_bytes"] + d["pattern"]["bytes_copied"] == 2**62' \
    "sections: 4 x 2^60 bytes in all"

# ---- Under MPI: block 5e18 on 2 ranks runs and verifies. ----------------------------------
if [[ -n "${MPIEXEC:-}" ]]; then
    # MPIEXEC_PREFLAGS is a space-separated list of flags (split on purpose).
    # shellcheck disable=SC2206
    MPIRUN=("$MPIEXEC" ${MPIEXEC_NUMPROC_FLAG:--n} 2 ${MPIEXEC_PREFLAGS:-})
    run_cmd 60 "${MPIRUN[@]}" "$REDIST" run --from n=100,block=5000000000000000000 \
        --to n=100,block=3 --verify
    if [[ "$CLI_STATUS" != 0 ]]; then fail "mpirun -n 2 redist run block 5e18: exit $CLI_STATUS"
    elif ! grep -Eq 'all 100 elements correct' "$CLI_OUT"; then
        fail "mpirun -n 2 redist run block 5e18: no 'all 100 elements correct'"
    else echo "ok: mpirun -n 2 redist run --from n=100,block=5e18 --to n=100,block=3 --verify"; fi
    run_cmd 60 "${MPIRUN[@]}" "$REDIST" run --from n=100,block=9223372036854775807 \
        --to n=100,block=2^62 --verify
    if [[ "$CLI_STATUS" != 0 ]] || ! grep -Eq 'all 100 elements correct' "$CLI_OUT"; then
        fail "mpirun -n 2 redist run block INT64_MAX -> 2^62: exit $CLI_STATUS"
    else echo "ok: mpirun -n 2 redist run block INT64_MAX -> 2^62 --verify"; fi
else
    echo "skip: MPIEXEC not set, no redist run under MPI"
fi

finish
