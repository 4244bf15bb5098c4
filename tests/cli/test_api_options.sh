#!/usr/bin/env bash
# docs/api.md's listing of redist_options against include/redist.h: the C block and the
# table of "Algorithms and options" must each name every field of `struct redist_options`
# exactly once and nothing else. A field added to the header and not to api.md (or left in
# api.md after it is gone) fails here. The tool is not used.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

run_cmd python3 - "$root/include/redist.h" "$root/docs/api.md" <<'EOF'
import re
import sys

header, api = open(sys.argv[1]).read(), open(sys.argv[2]).read()


def struct_fields(text, where):
    """The member names of `typedef struct redist_options { ... } redist_options;`."""
    m = re.search(r"typedef struct redist_options \{(.*?)\} redist_options;", text, re.S)
    if not m:
        sys.exit(f"{where}: no struct redist_options")
    body = re.sub(r"/\*.*?\*/", " ", m.group(1), flags=re.S)  # comments, one line or several
    names = []
    for decl in body.split(";"):
        decl = decl.strip()
        if not decl:
            continue
        # `type a, b[2], *c`: the type is everything before the first declarator.
        first, *more = decl.split(",")
        words = re.findall(r"\*?\s*([A-Za-z_]\w*)\s*(?:\[[^]]*\])?\s*$", first)
        if not words:
            sys.exit(f"{where}: cannot read the declaration '{decl}'")
        names.append(words[-1])
        for part in more:
            w = re.match(r"\s*\**\s*([A-Za-z_]\w*)\s*(?:\[[^]]*\])?\s*$", part)
            if not w:
                sys.exit(f"{where}: cannot read the declarator '{part}' in '{decl}'")
            names.append(w.group(1))
    return names


def section(text, title):
    start = text.find(title)
    if start < 0:
        sys.exit(f"docs/api.md: no section '{title}'")
    end = text.find("\n#", start + len(title))
    return text[start:] if end < 0 else text[start:end]


def table_fields(text):
    """The option names of the table's rows: the backquoted names of each row's first cell."""
    names = []
    for line in text.splitlines():
        cells = line.split("|")
        if len(cells) < 4 or not line.startswith("| `"):
            continue
        names += re.findall(r"`([A-Za-z_]\w*)`", cells[1])
    return names


def compare(what, listed, fields):
    bad = 0
    for name in sorted(set(listed)):
        if listed.count(name) > 1:
            print(f"FAIL: {what} lists {name} {listed.count(name)} times")
            bad += 1
    for name in fields:
        if name not in listed:
            print(f"FAIL: {what} does not list the field {name} of include/redist.h")
            bad += 1
    for name in sorted(set(listed) - set(fields)):
        print(f"FAIL: {what} lists {name}, which is not a field of struct redist_options")
        bad += 1
    if not bad:
        print(f"ok: {what} lists exactly the {len(fields)} fields: {' '.join(fields)}")
    return bad


fields = struct_fields(header, "include/redist.h")
options = section(api, "### Algorithms and options")
block = re.search(r"```c\n(.*?)```", options, re.S)
bad = 0
if not block:
    print("FAIL: docs/api.md: no C block in 'Algorithms and options'")
    bad += 1
else:
    bad += compare("api.md's C block", struct_fields(block.group(1), "docs/api.md"), fields)
bad += compare("api.md's table of options", table_fields(options), fields)
sys.exit(1 if bad else 0)
EOF
cat "$CLI_OUT"
if [[ "$CLI_STATUS" != 0 ]]; then fail "api.md's options listing differs from redist.h"
else echo "ok: api.md's options listing matches include/redist.h"; fi
finish
