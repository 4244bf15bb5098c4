# Helpers for the command-line tests (sourced). Each check prints one line; `finish` exits
# non-zero if any check failed.
set -u
: "${REDIST:?REDIST must name the redist tool}"
CLI_FAILS=0
CLI_OUT=$(mktemp) CLI_ERR=$(mktemp)
trap 'rm -f "$CLI_OUT" "$CLI_ERR"' EXIT

# run_tool [timeout-seconds] CMD...: runs CMD, leaves stdout/stderr in $CLI_OUT/$CLI_ERR and
# the exit status in $CLI_STATUS (124 on timeout).
run_cmd() {
    local t=60
    if [[ "$1" =~ ^[0-9]+$ ]]; then t=$1; shift; fi
    CLI_STATUS=0
    timeout -k 5 "$t" "$@" >"$CLI_OUT" 2>"$CLI_ERR" || CLI_STATUS=$?
}

fail() {
    echo "FAIL: $*"
    echo "  stdout: $(head -c 600 "$CLI_OUT")"
    echo "  stderr: $(head -c 600 "$CLI_ERR")"
    CLI_FAILS=$((CLI_FAILS + 1))
}

# expect_status CODE CMD...: CMD exits with CODE within 60 s.
expect_status() {
    local want=$1; shift
    run_cmd "$@"
    if [[ "$CLI_STATUS" != "$want" ]]; then fail "exit $CLI_STATUS (want $want): $*"
    else echo "ok: exit $want: $*"; fi
}

# expect_usage PATTERN CMD...: CMD exits 2 and its stderr matches PATTERN (grep -E).
expect_usage() {
    local pat=$1; shift
    run_cmd "$@"
    if [[ "$CLI_STATUS" != 2 ]]; then fail "exit $CLI_STATUS (want 2): $*"
    elif ! grep -Eq -- "$pat" "$CLI_ERR"; then fail "stderr does not match /$pat/: $*"
    else echo "ok: usage error /$pat/: $*"; fi
}

finish() {
    if [[ $CLI_FAILS -ne 0 ]]; then echo "$CLI_FAILS check(s) failed"; exit 1; fi
    echo "all checks passed"
}
