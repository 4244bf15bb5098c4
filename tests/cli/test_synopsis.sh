#!/usr/bin/env bash
# docs/tool.md's synopsis of each sub-command (the first ```text block of its section) names
# every option the command's own help lists (`redist help CMD`, --help aside), so that the
# page's usage lines cannot fall behind the tool (explain's once lacked --memory).
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DOC="$SRC/docs/tool.md"

# synopsis CMD: the first text block after the heading of `redist CMD`
synopsis() {
    awk -v head="\`redist $1\`" '
        /^##/ { on = index($0, head) > 0; next }
        on && /^```text/ { inside = 1; next }
        on && inside && /^```/ { exit }
        on && inside { print }' "$DOC"
}

for cmd in run explain bench calibrate simulate; do # demo: one option, in its prose
    text=$(synopsis "$cmd")
    if [[ -z "$text" ]]; then fail "docs/tool.md: no synopsis for redist $cmd"; continue; fi
    mapfile -t opts < <("$REDIST" help "$cmd" | grep -oE -- '--[a-z][a-z-]*' | sort -u)
    missing=()
    for o in "${opts[@]}"; do
        [[ "$o" == --help ]] || grep -qF -- "$o" <<<"$text" || missing+=("$o")
    done
    if [[ ${#opts[@]} -lt 2 ]]; then fail "redist help $cmd lists ${#opts[@]} options"
    elif [[ ${#missing[@]} -gt 0 ]]; then fail "docs/tool.md's synopsis of redist $cmd lacks ${missing[*]}"
    else echo "ok: the synopsis of redist $cmd names its ${#opts[@]} options"; fi
done
finish
