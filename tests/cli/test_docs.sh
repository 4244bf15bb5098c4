#!/usr/bin/env bash
# The documentation's commands run and its worked figures are the tool's output.
#
# Scans README.md, docs/guide.md, docs/tool.md, docs/algorithms.md and docs/api.md for fenced
# code blocks and acts on them by their language tag and on an HTML comment on the line just
# above:
#
#   ```sh        every command in it is run (one per line; a line ending in `\` continues on
#                the next; `#` comment lines are ignored) and must exit 0; output not checked.
#   ```console   a transcript: a line `$ CMD` is run, the lines after it (up to the next
#                `$ ` line) are its expected output, stdout and stderr together. It must exit
#                0, or N when CMD ends in the comment `# exit N`. Comparison, line by line,
#                after trailing blanks are removed: a line that is exactly `[...]` matches
#                any number of lines; `[...]` inside a line matches any text (timings, paths,
#                measured figures); every other character must match. The whole output is
#                matched, first line to last.
#   ```c etc.    not run (neither is any other tag: text, fortran, cmake, ...).
#
#   <!-- doc-test: skip (REASON) -->        the next block is not run; each of its commands
#                                           is printed here with REASON (never silently).
#   <!-- doc-test: no-compare (REASON) -->  the next console block's commands run and must
#                                           exit as stated, but their output is not compared
#                                           (measured figures); printed with REASON.
#   <!-- doc-test: file NAME -->            the next block is written to NAME in the scratch
#                                           directory, where later commands of the same
#                                           document can compile or read it.
#   <!-- doc-test: openmpi (REASON) -->     the next block runs only where the build is for
#                                           Open MPI (the Python package's examples: Debian's
#                                           mpi4py is built for it); elsewhere each command
#                                           is printed with REASON, as for skip.
#
# Every relative link of these pages must name a file that exists, and a `#anchor` of the same
# page one of its headings.
#
# Commands run with bash from a scratch directory in which build/ is BUILD_DIR, and include/
# and examples/ are the source tree's, so `build/redist`, `source build/mpiexec.env` and
# `mpicc ... -Iinclude -Lbuild` work as written. Shell functions stand in for the tool names:
# `redist` is REDIST (also as the program mpiexec starts); `mpicc` is this build's MPI C compiler (CMakeCache's MPI_C_COMPILER);
# `python3` (also as the program mpiexec starts) is Debian's /usr/bin/python3 with the
# package (python/) on PYTHONPATH and the build's libredist in REDIST_LIBRARY;
# `mpiexec` and `mpirun` drop the Open MPI flags the docs show (--allow-run-as-root,
# --oversubscribe), keep -n/-np N and become "$MPIEXEC -n N $MPIEXEC_PREFLAGS" (so the
# same docs run under MPICH); any other launcher flag is an error, so that the docs show
# only commands this test can translate. The cost model is the default one:
# REDIST_MACHINE_FILE names a file that does not exist and no REDIST_MACHINE_<KEY> is set,
# so figures do not depend on a calibration of the machine running the test.
#
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build tree}" "${MPIEXEC:?}"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT

MPICC=$(sed -n 's/^MPI_C_COMPILER:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null | head -n 1)
MPICC=${MPICC:-$(command -v mpicc)}
# A sanitizer build's library needs its programs built with the same flags (ASan's runtime
# first in the program's libraries), as CMakeLists.txt builds the examples.
SANITIZE_FLAGS=""
if grep -q '^REDIST_SANITIZE:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
    SANITIZE_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
fi
export MPICC SANITIZE_FLAGS REDIST BUILD_DIR MPIEXEC
export MPIEXEC_NUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG:--n} MPIEXEC_PREFLAGS=${MPIEXEC_PREFLAGS:-}
export REDIST_MACHINE_FILE="$TMP/no-machine-file"
# the Python package from the source tree, over this build's library
export REDIST_PYTHON=${REDIST_PYTHON:-/usr/bin/python3} REDIST_LIBRARY="$BUILD_DIR/libredist.so"
export PYTHONPATH="$SRC/python${PYTHONPATH:+:$PYTHONPATH}"
DOCS_MPI=$(sed -n "s/^REDIST_MPI='\(.*\)'$/\1/p" "$BUILD_DIR/mpiexec.env" 2>/dev/null)
export DOCS_MPI=${DOCS_MPI:-openmpi}
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep '^REDIST_MACHINE_[A-Z_]*$' | grep -v '^REDIST_MACHINE_FILE$')

mkdir -p "$TMP/work"
ln -s "$BUILD_DIR" "$TMP/work/build"
ln -s "$SRC/include" "$TMP/work/include"
ln -s "$SRC/examples" "$TMP/work/examples"
ln -s "$SRC/python" "$TMP/work/python"

cat >"$TMP/prelude.sh" <<'EOF'
redist() { "$REDIST" "$@"; }
# shellcheck disable=SC2086 # the flags are a list
mpicc() { "$MPICC" $SANITIZE_FLAGS "$@"; }
launch() {
    local n=1
    while [[ $# -gt 0 && "$1" == -* ]]; do
        case "$1" in
            --allow-run-as-root | --oversubscribe) shift ;;
            -n | -np) n=$2; shift 2 ;;
            *) echo "doc-test: launcher flag '$1' is not translated (see tests/cli/test_docs.sh)" >&2
               return 97 ;;
        esac
    done
    if [[ $# -gt 0 && "$1" == redist ]]; then shift; set -- "$REDIST" "$@"; fi
    if [[ $# -gt 0 && "$1" == python3 ]]; then shift; set -- "$REDIST_PYTHON" "$@"; fi
    # shellcheck disable=SC2086 # the flags are lists
    "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$n" $MPIEXEC_PREFLAGS "$@"
}
python3() { "$REDIST_PYTHON" "$@"; }
mpiexec() { launch "$@"; }
mpirun() { launch "$@"; }
EOF

python3 - "$SRC" "$TMP" README.md docs/guide.md docs/tool.md docs/algorithms.md docs/api.md <<'PY'
import os, re, subprocess, sys, time

src, tmp, docs = sys.argv[1], sys.argv[2], sys.argv[3:]
work = os.path.join(tmp, "work")
prelude = os.path.join(tmp, "prelude.sh")
fails = ran = skipped = 0
start = time.time()
DIRECTIVE = re.compile(r"^<!-- doc-test: (skip|no-compare|file|openmpi) ?(.*?) ?-->$")

def blocks(path):
    """(line number, tag, directive, argument, lines) of every fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i, prev = 0, ""
    while i < len(lines):
        m = re.match(r"^```\s*([A-Za-z0-9_+-]*)\s*$", lines[i])
        if not m:
            if lines[i].strip():
                prev = lines[i].strip()
            i += 1
            continue
        tag, first, body = m.group(1), i + 1, []
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        d = DIRECTIVE.match(prev)
        yield first, tag, d.group(1) if d else None, d.group(2).strip("() ") if d else "", body
        prev = ""
        i += 1

def joined(body):
    """Logical lines: a trailing backslash continues the line."""
    out, cur = [], ""
    for line in body:
        if line.rstrip().endswith("\\"):
            cur += line.rstrip()[:-1] + " "
        else:
            out.append(cur + line)
            cur = ""
    if cur:
        out.append(cur)
    return out

def sh_commands(body):
    return [c.strip() for c in joined(body) if c.strip() and not c.strip().startswith("#")]

def transcript(body):
    """[(command, [expected lines])] of a console block."""
    items, lines, i = [], body, 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        cmd = lines[i][2:]
        while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
        i += 1
        exp = []
        while i < len(lines) and not lines[i].startswith("$ "):
            exp.append(lines[i].rstrip())
            i += 1
        while exp and exp[-1] == "":
            exp.pop()
        items.append((cmd.strip(), exp))
    return items

def line_matches(pattern, line):
    parts = pattern.split("[...]")
    return re.fullmatch(".*".join(re.escape(p) for p in parts), line, re.S) is not None

def matches(exp, got):
    """exp (patterns) against got (lines), anchored; `[...]` alone matches any lines."""
    memo = {}
    def m(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(exp):
            r = j == len(got)
        elif exp[i] == "[...]":
            r = any(m(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and line_matches(exp[i], got[j]) and m(i + 1, j + 1)
        memo[(i, j)] = r
        return r
    return m(0, 0)

def run(cmd):
    t = time.time()
    p = subprocess.run(["bash", "-c", f"source {prelude}\n{cmd}"], cwd=work,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=180)
    return p.returncode, p.stdout.decode(errors="replace"), time.time() - t

def fail(where, cmd, why, out=""):
    global fails
    fails += 1
    print(f"FAIL: {where}: {cmd}\n  {why}")
    for line in out.rstrip().split("\n")[-40:]:
        print(f"  | {line}")

def slug(heading):
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")

def check_links(doc, path):
    """Relative links must name files that exist; #anchors in the same page, its headings."""
    text = open(path, encoding="utf-8").read()
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    anchors = {slug(h) for h in re.findall(r"^#+ (.*)$", prose, re.M)}
    bad = 0
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        if file and not os.path.exists(os.path.join(os.path.dirname(path), file)):
            fail(doc, f"link {target}", "names a file that does not exist")
            bad += 1
        elif not file and anchor not in anchors:
            fail(doc, f"link {target}", "names no heading of this page")
            bad += 1
    if not bad:
        print(f"ok: {doc}: every relative link resolves")

for doc in docs:
    path = os.path.join(src, doc)
    if not os.path.exists(path):
        fail(doc, "-", "document missing")
        continue
    check_links(doc, path)
    for first, tag, directive, arg, body in blocks(path):
        where = f"{doc}:{first}"
        if directive == "file":
            with open(os.path.join(work, arg), "w", encoding="utf-8") as f:
                f.write("\n".join(body) + "\n")
            print(f"file: {where}: wrote {arg}")
            continue
        if tag == "sh":
            items = [(c, None) for c in sh_commands(body)]
        elif tag == "console":
            items = transcript(body)
        else:
            continue
        for cmd, exp in items:
            if directive == "skip" or (directive == "openmpi" and
                                       os.environ.get("DOCS_MPI") != "openmpi"):
                skipped += 1
                print(f"SKIP: {where}: {cmd}\n  reason: {arg}")
                continue
            want = 0
            m = re.search(r"#\s*exit\s+(\d+)\s*$", cmd)
            if m and tag == "console":
                want = int(m.group(1))
            try:
                status, out, secs = run(cmd)
            except subprocess.TimeoutExpired:
                fail(where, cmd, "timed out after 180 s")
                continue
            ran += 1
            if status != want:
                fail(where, cmd, f"exit {status}, want {want}", out)
            elif exp is not None and directive != "no-compare" and \
                    not matches(exp, out.rstrip("\n").split("\n") if out.strip() else []):
                import difflib
                diff = difflib.unified_diff(exp, out.rstrip("\n").split("\n"), "documented",
                                            "tool output", lineterm="", n=1)
                fail(where, cmd, "output differs from the documented block", "\n".join(diff))
            else:
                note = f" (output not compared: {arg})" if directive == "no-compare" else \
                       " (output matches)" if exp is not None else ""
                print(f"ok: {where}: {cmd} [{secs:.1f} s]{note}")

print(f"doc-test: {ran} command(s) run, {skipped} skipped (listed above), {fails} failure(s), "
      f"{time.time() - start:.0f} s")
sys.exit(1 if fails else 0)
PY
status=$?
if [[ $status -ne 0 ]]; then CLI_FAILS=$((CLI_FAILS + 1)); fi
finish
