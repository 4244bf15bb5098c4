#!/usr/bin/env bash
# explain --json writes exactly the keys docs/tool.md's key table lists (`--json` prints one
# JSON object): the top level, and inside from/to, pattern, machine, memory, relabel, tables
# and each kind of algorithms[] entry, every key written is listed and every key listed is
# written by one of the invocations below (--tables with and without tables, --relabel,
# --permute, boxes and --reduce, algorithms that do and do not apply); explain --help names
# every top-level key.
# An algorithms[] entry's `chosen` is a boolean, true on exactly the row of the algorithm auto
# chooses, also when --algorithm forces another. Once, the table missed machine's
# window_per_byte and per_index (and the top level's transport, bounded, buffer_bytes), and
# `chosen` repeated the row's name.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT

i=0
while read -r -a args; do
    [[ ${#args[@]} -gt 0 ]] || continue
    run_cmd 60 "$REDIST" explain "${args[@]}" --json
    if [[ "$CLI_STATUS" != 0 ]]; then fail "explain ${args[*]} --json: exit $CLI_STATUS"; continue; fi
    cp "$CLI_OUT" "$TMP/out$i.json"
    i=$((i + 1))
done <<'EOF'
--from n=48,block=2,procs=4 --to n=48,block=6 --tables --relabel
--from n=48,block=2,procs=4 --to n=48,block=6 --algorithm direct
--from n=600x600,block=8x8,grid=2x2 --to n=600x600,block=8x8,grid=4x1 --tables
--from n=40x60x40,block=10x60x40,grid=4x1x1 --to n=40x40x60,block=40x40x15,grid=1x1x4 --permute 2,0,1
--from n=2^20,block=1,procs=4 --to n=2^20,block=3 --max-buffer 64k
--from n=64x64x64,pencil=0,procs=4 --to n=64x64x64,slab=2 --reduce sum
EOF
"$REDIST" explain --help >"$TMP/help.txt"

if python3 - "$SRC/docs/tool.md" "$TMP/help.txt" "$TMP"/out*.json <<'PY'; then echo "ok: the JSON keys written are the keys docs/tool.md lists"
import json, re, sys
doc, help_text, outs = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3:]
section = doc[doc.index("`--json` prints one JSON object on one line:"):]
section = section[:section.index("\n### ")]
top, nested, variants = set(), {}, {}
for row in re.findall(r"^\| (.+?) \| (.+) \|$", section, re.M):
    keys = re.findall(r"`([a-z_]+)`", row[0])
    if keys == ["key"] or not keys:
        continue
    top |= set(keys)
    for brace in re.findall(r"`\{([^}]*)\}`", row[1]):
        names = {re.sub(r":.*", "", w).strip(" []") for w in re.split(r"[,\[]", brace)}
        names.discard("")
        kind = "applicable" if "applicable: true" in brace else "error" if "applicable: false" in brace else None
        for k in keys[:1] if kind is None and keys[0] == "tables" else keys:
            if kind:
                variants[kind] = names
            else:
                nested.setdefault(k, set()).update(names)
written_top, written_nested, written_rows = set(), {}, {"applicable": set(), "error": set()}
bad = []
for path in outs:
    d = json.load(open(path))
    written_top |= set(d)
    for k, v in d.items():
        if isinstance(v, dict):
            written_nested.setdefault(k, set()).update(v)
    for r in d["algorithms"]:
        written_rows["applicable" if r["applicable"] else "error"].update(r)
    chosen = [r["chosen"] for r in d["algorithms"] if r["applicable"]]
    marked = [r["name"] for r in d["algorithms"] if r.get("chosen") is True]
    if not all(isinstance(c, bool) for c in chosen):
        bad.append(f"{d['from']['spec']}: chosen is not a boolean: {sorted(set(map(str, chosen)))}")
    elif len(marked) != 1 or marked[0] == "auto" or (
            d["requested"] == "auto" and marked != [d["algorithm"]]):
        bad.append(f"{d['from']['spec']}: chosen on {marked}, auto chose {d['algorithm']}")
if written_top != top:
    bad.append(f"top level: written, not listed {sorted(written_top - top)}; listed, not written {sorted(top - written_top)}")
for k in sorted(set(written_nested) | set(nested)):
    if written_nested.get(k) != nested.get(k):
        w, l = written_nested.get(k, set()), nested.get(k, set())
        bad.append(f"{k}: written, not listed {sorted(w - l)}; listed, not written {sorted(l - w)}")
for kind in ("applicable", "error"):
    if written_rows[kind] != variants.get(kind):
        w, l = written_rows[kind], variants.get(kind, set())
        bad.append(f"algorithms[] ({kind}): written, not listed {sorted(w - l)}; listed, not written {sorted(l - w)}")
listed_in_help = set(re.findall(r"[a-z_]+", help_text[help_text.index("JSON keys:"):]))
if top - listed_in_help:
    bad.append(f"explain --help does not name {sorted(top - listed_in_help)}")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
else fail "explain --json and docs/tool.md's key table differ (above)"; fi
finish
