#!/usr/bin/env bash
# redist demo's first part (docs/tool.md) lists the algorithms that ran and were verified
# ("correct:") and those that do not apply ("not applicable:"), each list on its own lines,
# word-wrapped under its label. On 1, 3, 4 and 5 ranks (part 1 runs on min(P, 4) of them):
# every algorithm the library lists is named exactly once, in the list of what happened to
# it, and the not-applicable list is exactly what explain finds not applicable for the same
# pair and communicator; no line holds words of both lists (once, the two lists were
# printed word by word as the algorithms ran, so they interleaved mid-line).
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT

for np in 1 3 4 5; do
    p=$((np < 4 ? np : 4))
    run_cmd 30 "$REDIST" explain --from "n=48,block=2,procs=$p" --to "n=48,block=6,procs=$p" --procs "$np" --json
    if [[ "$CLI_STATUS" != 0 ]]; then fail "explain of the demo's pair on $np ranks: exit $CLI_STATUS"; continue; fi
    cp "$CLI_OUT" "$TMP/explain.json"
    # shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
    run_cmd 240 "$MPIEXEC" -n "$np" $MPIEXEC_PREFLAGS "$REDIST" demo
    if [[ "$CLI_STATUS" != 0 ]]; then fail "demo on $np ranks: exit $CLI_STATUS"; continue; fi
    if python3 - "$CLI_OUT" "$TMP/explain.json" <<'PY'; then echo "ok: demo on $np ranks lists every algorithm once, in the right list"
import json, re, sys
lines = open(sys.argv[1]).read().split("\n")
rows = json.load(open(sys.argv[2]))["algorithms"]
names = [r["name"] for r in rows]
want_na = [r["name"] for r in rows if not r["applicable"]]
start = next(i for i, l in enumerate(lines) if l.startswith("   Run on "))
labels = {"correct": "     correct: ", "not applicable": "     not applicable: "}
lists, current = {"correct": [], "not applicable": []}, None
for line in lines[start + 1:]:
    if not line.strip() or line.startswith("2. "):
        break
    both = [k for k, lab in labels.items() if lab.strip() in line]
    assert len(both) <= 1, f"a line holds both lists: {line!r}"
    new = [k for k, lab in labels.items() if line.startswith(lab)]
    if new:
        current, words = new[0], line[len(labels[new[0]]):]
    else:
        assert current is not None, f"a line outside the lists: {line!r}"
        indent = " " * len(labels[current])
        assert line.startswith(indent) and line[len(indent)] != " ", \
            f"not a continuation of the {current} list: {line!r}"
        words = line[len(indent):]
    parts = [w.strip() for w in words.rstrip(",").split(",")]
    assert all(parts), f"an empty word: {line!r}"
    lists[current] += parts
correct = [re.sub(r" \(-> [a-z0-9-]+\)$", "", w) for w in lists["correct"]]
listed = correct + lists["not applicable"]
assert sorted(listed) == sorted(names), f"listed {listed}, the library has {names}"
assert lists["not applicable"] == want_na, f"not applicable {lists['not applicable']}, explain says {want_na}"
assert correct[0] == "auto" and re.fullmatch(r"auto \(-> [a-z0-9-]+\)", lists["correct"][0]), lists["correct"]
PY
    else fail "demo on $np ranks: its algorithm lists are wrong (above)"; sed -n '/Run on/,/^$/p' "$CLI_OUT"; fi
done
finish
