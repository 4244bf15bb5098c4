#!/bin/bash
# ctest install_man: the man pages man/redist.1 (the tool) and man/redist.3 (the C API)
# render without a warning (groff -man -ww, and man -l), have a NAME line whatis can read,
# and cannot go stale silently: every sub-command and every option the tool's help lists is
# in redist.1, every function and error code redist.h declares is in redist.3, and so are
# every field of redist_options and every REDIST_MEMORY_* and REDIST_TRANSPORT_* value they
# take, and neither page names a sub-command or function that no longer exists.
#   bash tests/install/test_man.sh TOOL SOURCE_DIR
set -euo pipefail
tool=${1:?usage: test_man.sh TOOL SOURCE_DIR}
src=${2:?usage: test_man.sh TOOL SOURCE_DIR}
errors=0
bad() {
    echo "install_man: $*" >&2
    errors=$((errors + 1))
}
export LC_ALL=C.UTF-8 MANWIDTH=80

errf=$(mktemp)
trap 'rm -f "$errf"' EXIT
declare -A text
for page in "$src/man/redist.1" "$src/man/redist.3"; do
    name=$(basename "$page")
    [[ -f $page ]] || { bad "$page is missing"; continue; }
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1 >/dev/null) || bad "groff failed on $name"
    [[ -z $warnings ]] || bad "groff warns on $name:"$'\n'"$warnings"
    out=$(man --warnings -l "$page" 2>"$errf" | col -b) || bad "man -l $name failed"
    [[ ! -s $errf ]] || bad "man -l $name warns:"$'\n'"$(cat "$errf")"
    [[ $out == *NAME* && $out == *SYNOPSIS* && $out == *DESCRIPTION* ]] ||
        bad "$name lacks NAME, SYNOPSIS or DESCRIPTION"
    whatis=$(lexgrog "$page" 2>&1) || bad "lexgrog cannot read $name's NAME: $whatis"
    text[$name]=$out
done
t1=${text[redist.1]:-}
t3=${text[redist.3]:-}

# Sub-commands: the "commands:" block of `redist --help` (two-space indent, name, text).
help=$("$tool" --help)
mapfile -t commands < <(awk '/^commands:/ {on = 1; next} on && /^$/ {exit}
                              on && /^  [a-z]/ {print $1}' <<<"$help")
[[ ${#commands[@]} -ge 5 ]] || bad "found only ${#commands[@]} sub-commands in redist --help"
roff1=$(cat "$src/man/redist.1")
for c in "${commands[@]}"; do
    grep -Eq "^\.SS \"?redist $c( |\"|$)" <<<"$roff1" || bad "redist.1 has no section (.SS) for sub-command '$c'"
    # Every option of its help (--name) is in the page.
    mapfile -t opts < <("$tool" help "$c" | grep -oE -- '--[a-z][a-z-]*' | sort -u)
    for o in "${opts[@]}"; do
        grep -Fq -- "$o" <<<"$t1" || bad "redist.1 does not mention $o of 'redist $c'"
    done
done
# (Lists as strings for here-strings: under pipefail, `printf | grep -q` fails at random when
# grep exits before printf has written everything.)
command_list=$(printf '%s\n' "${commands[@]}")
# ... and no section for a sub-command the tool does not have (help is in the usage lines).
while read -r c; do
    grep -qx "$c" <<<"$command_list" || grep -q "redist $c" <<<"$help" || bad "redist.1 describes 'redist $c', which redist --help does not list"
done < <(sed -nE 's/^\.SS "?redist ([a-z]+).*/\1/p' <<<"$roff1")

# Functions: every declaration of redist.h (a line starting with its return type).
header=$src/include/redist.h
mapfile -t functions < <(grep -oE '^[a-z][a-z0-9_ ]*[ *]+redist_[a-z0-9_]+\(' "$header" |
    sed -E 's/.*(redist_[a-z0-9_]+)\($/\1/' | sort -u)
[[ ${#functions[@]} -ge 50 ]] || bad "found only ${#functions[@]} functions in redist.h"
function_list=$(printf '%s\n' "${functions[@]}")
for f in "${functions[@]}"; do
    grep -Fq "$f(" <<<"$t3" || bad "redist.3 does not show $f( (a prototype or call)"
done
while read -r f; do
    grep -qx "$f" <<<"$function_list" || bad "redist.3 names $f, which redist.h does not declare"
done < <(grep -oE 'redist_[a-z0-9_]+\(' <<<"$t3" | tr -d '(' | sort -u)
mapfile -t codes < <(grep -oE '^#define REDIST_(SUCCESS|ERR_[A-Z_]+)' "$header" | awk '{print $2}')
for e in "${codes[@]}"; do
    grep -Fq "$e" <<<"$t3" || bad "redist.3 does not list $e"
done

# The options: every field of redist_options (each declarator of its member lines) and the
# named values of its memory and transport fields.
mapfile -t fields < <(awk '/^typedef struct redist_options \{/ {on = 1; next}
    /^\} redist_options;/ {on = 0}
    on && /^    [a-z]/ {
        line = $0; sub(/;.*/, "", line)
        sub(/^ +(const |unsigned |struct )*[a-z_0-9]+[ *]+/, "", line)
        n = split(line, parts, ",")
        for (i = 1; i <= n; i++) { f = parts[i]; gsub(/[ *]|\[[0-9]*\]/, "", f); print f }
    }' "$header")
[[ ${#fields[@]} -ge 15 ]] || bad "found only ${#fields[@]} fields of redist_options in redist.h"
for f in "${fields[@]}"; do
    grep -Eq "(^|[^a-z_])$f([^a-z_]|$)" <<<"$t3" || bad "redist.3 does not name the option field $f"
done
mapfile -t values < <(grep -oE 'REDIST_(MEMORY|TRANSPORT)_[A-Z]+' "$header" | sort -u)
for v in "${values[@]}"; do
    grep -Fq "$v" <<<"$t3" || bad "redist.3 does not define $v"
done

if [[ $errors -ne 0 ]]; then
    echo "install_man: FAILED ($errors problems)" >&2
    exit 1
fi
echo "install_man: redist.1 and redist.3 render cleanly; ${#commands[@]} sub-commands, ${#functions[@]} functions, ${#codes[@]} codes, ${#fields[@]} option fields and ${#values[@]} option values covered"
