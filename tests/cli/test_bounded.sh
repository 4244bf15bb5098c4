#!/usr/bin/env bash
# --max-buffer (bounded mode, docs/tool.md): explain shows the memory of both modes, in text
# and JSON; run verifies every element in bounded mode and reports buffers within the bound;
# bad bounds exit 2 (tool) or 1 (library) with a message.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
EXPLAIN=("$REDIST" explain --from "n=4M,block=1,procs=4" --to "n=4M,block=3")

# json_value EXPR: evaluates EXPR over the JSON object d in $CLI_OUT, prints the result.
json_value() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(*[$1])" "$CLI_OUT"; }

run_cmd 30 "${EXPLAIN[@]}"
if [[ "$CLI_STATUS" == 0 ]] && grep -Eq "memory +per rank: 10.7 MB of pack buffers \(default mode" "$CLI_OUT"
then echo "ok: explain prints the default mode's memory"
else fail "explain: no default-mode memory line (exit $CLI_STATUS)"; fi

run_cmd 30 "${EXPLAIN[@]}" --max-buffer 1M
if [[ "$CLI_STATUS" == 0 ]] &&
    grep -Eq "memory +per rank: 10.7 MB of pack buffers in the default mode; bounded mode: 1.00 MB \(chunks of" "$CLI_OUT"
then echo "ok: explain --max-buffer prints both modes"
else fail "explain --max-buffer: no bounded memory line (exit $CLI_STATUS)"; fi

run_cmd 30 "${EXPLAIN[@]}" --max-buffer 1M --json
if [[ "$CLI_STATUS" != 0 ]]; then fail "explain --json --max-buffer: exit $CLI_STATUS"
else
    got=$(json_value 'd["memory"]["default_bytes"], d["memory"]["bounded_bytes"], 0 < d["memory"]["chunk_bytes"] <= 500000, [(a["name"], a["bounded"], a["buffer_bytes"] <= 10**6) for a in d["algorithms"] if a["applicable"] and a["name"] == "direct-async"]')
    want="10666672 1000000 True [('direct-async', True, True)]"
    if [[ "$got" == "$want" ]]; then echo "ok: explain JSON memory: $got"
    else fail "explain JSON memory: got $got, want $want"; fi
fi

# An algorithm that cannot bound its buffers says so.
run_cmd 30 "${EXPLAIN[@]}" --max-buffer 1M --json
if [[ "$(json_value '[a.get("error") for a in d["algorithms"] if a["name"] == "indirect"][0]')" == REDIST_ERR_NOT_APPLICABLE ]]
then echo "ok: indirect is not applicable in bounded mode"
else fail "indirect in bounded mode: not NOT_APPLICABLE"; fi

expect_usage 'max-buffer: expected a number of bytes' "${EXPLAIN[@]}" --max-buffer lots
expect_usage 'max-buffer: expected a number of bytes' "${EXPLAIN[@]}" --max-buffer -5

# The memory limit is a node's, shared evenly by the plan's ranks on it (api.md "Memory"):
# 300000 bytes over 3 ranks of one node leave 100000 to each, less than a rank's default
# buffers of cyclic(3) -> cyclic(5) here (about 213 kB, which a limit per rank would let
# through): bounded mode by itself, B = 300000 / (16 x 3) = 6250. explain counts the ranks of
# --procs on one node when the machine file says they share one.
MEMORY_PAIR=(--from "n=60000,block=3" --to "n=60000,block=5")
machine_file=$(mktemp)
echo "shared_node = 1" >"$machine_file"
run_cmd 30 env REDIST_MACHINE_FILE="$machine_file" REDIST_MEMORY_LIMIT=300000 \
    "$REDIST" explain "${MEMORY_PAIR[@]}" --procs 3 --json
rm -f "$machine_file"
if [[ "$CLI_STATUS" != 0 ]]; then fail "explain under REDIST_MEMORY_LIMIT: exit $CLI_STATUS"
else
    got=$(json_value '100000 < d["memory"]["default_bytes"] < 300000, d["memory"]["bounded_bytes"]')
    if [[ "$got" == "True 6250" ]]; then echo "ok: explain: a node's limit shared by 3 ranks: $got"
    else fail "explain under REDIST_MEMORY_LIMIT=300000 on 3 ranks: got $got, want True 6250"; fi
fi

if [[ -n "${MPIEXEC:-}" ]]; then
    # MPIEXEC_PREFLAGS is a space-separated list of flags (split on purpose).
    # shellcheck disable=SC2206
    MPIRUN=("$MPIEXEC" ${MPIEXEC_NUMPROC_FLAG:--n} 3 ${MPIEXEC_PREFLAGS:-})
    for args in "--from n=100000,block=1 --to n=100000,block=7 --max-buffer 4k" \
        "--from n=300x200,block=16x8,grid=1x3,order=col --to n=300x200,block=7x9,grid=3x1 --max-buffer 1000" \
        "--from n=5000,block=2500,ranks=0-1 --to n=5000,block=1,ranks=2 --algorithm block-to-cyclic --max-buffer 64"; do
        # shellcheck disable=SC2086
        run_cmd 120 "${MPIRUN[@]}" "$REDIST" run $args --verify --repeat 2 --quiet
        bound=${args##* }
        bound=${bound/k/000}
        if [[ "$CLI_STATUS" != 0 ]]; then fail "run $args: exit $CLI_STATUS"
        elif ! grep -q "wrong=0" "$CLI_OUT" || ! grep -q "bounded=1" "$CLI_OUT"; then
            fail "run $args: not verified in bounded mode"
        else
            bytes=$(sed -n 's/.*buffer_bytes=\([0-9]*\).*/\1/p' "$CLI_OUT")
            if [[ -z "$bytes" || "$bytes" -gt "$bound" ]]; then
                fail "run $args: buffer_bytes=$bytes above the bound $bound"
            else echo "ok: run $args: verified, buffer_bytes=$bytes <= $bound"; fi
        fi
    done
    run_cmd 120 env REDIST_MEMORY_LIMIT=300000 "${MPIRUN[@]}" "$REDIST" run "${MEMORY_PAIR[@]}" \
        --verify --repeat 2 --quiet
    bytes=$(sed -n 's/.*buffer_bytes=\([0-9]*\).*/\1/p' "$CLI_OUT")
    if [[ "$CLI_STATUS" == 0 ]] && grep -q "wrong=0" "$CLI_OUT" && grep -q "bounded=1" "$CLI_OUT" &&
        [[ -n "$bytes" && "$bytes" -le 6250 ]]; then
        echo "ok: run: a node's limit shared by 3 ranks: bounded, buffer_bytes=$bytes <= 6250"
    else fail "run under REDIST_MEMORY_LIMIT=300000 on 3 ranks: not bounded within 6250 bytes"; fi
    run_cmd 60 "${MPIRUN[@]}" "$REDIST" run --from n=1000 --to n=1000,block=3 --max-buffer 4
    if [[ "$CLI_STATUS" == 1 ]] && grep -q "max_buffer_bytes" "$CLI_ERR"; then
        echo "ok: a bound below two elements is the library's error"
    else fail "--max-buffer 4 with doubles: exit $CLI_STATUS"; fi
    run_cmd 60 "${MPIRUN[@]}" "$REDIST" run --from n=1000 --to n=1000,block=3 --max-buffer 1M \
        --algorithm indirect
    if [[ "$CLI_STATUS" == 1 ]] && grep -q "cannot bound its buffers" "$CLI_ERR"; then
        echo "ok: a forced algorithm without bounded mode is not applicable"
    else fail "--max-buffer with indirect: exit $CLI_STATUS"; fi
else
    echo "skip: MPIEXEC not set, no redist run under MPI"
fi
finish
