#!/usr/bin/env bash
# An option given twice is refused in every sub-command, as a SPEC key given twice is
# (docs/tool.md): exit 2 and one line "redist: CMD: --opt given twice (see redist CMD --help)",
# whether each is written --opt V or --opt=V (and -q is --quiet), flags included; help, --help
# and --version refuse words they do not take. Distinct options (--alpha and --beta) are still
# taken together. `--procs 2 --procs 3`, two --from and `redist help run extra` were once
# silently accepted (the last one given won).
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
mpi() { run_cmd 60 "$MPIEXEC" -n 1 $MPIEXEC_PREFLAGS "$REDIST" "$@" </dev/null; }

# twice CMD OPT ARGS...: `redist CMD ARGS...` exits 2 saying OPT was given twice, once, and
# prints nothing on stdout (under mpiexec for the commands that need it).
twice() {
    local cmd=$1 opt=$2 line
    shift 2
    line="redist: $cmd: $opt given twice (see redist $cmd --help)"
    case $cmd in
        explain | simulate) run_cmd 30 "$REDIST" "$cmd" "$@" ;;
        *) mpi "$cmd" "$@" ;;
    esac
    if [[ "$CLI_STATUS" != 2 ]]; then fail "exit $CLI_STATUS (want 2): $cmd $*"
    elif [[ -s "$CLI_OUT" ]]; then fail "stdout not empty: $cmd $*"
    elif [[ "$(grep '^redist' "$CLI_ERR")" != "$line" ]]; then fail "not '$line': $cmd $*"
    else echo "ok: $cmd $*: $opt given twice"; fi
}

PAIR=(--from n=24,procs=1 --to n=24,block=5)
# explain: every option, the second spelled both ways.
twice explain --from --from n=24,procs=2 --to n=24 --from=n=24,procs=2
twice explain --to --from n=24,procs=2 --to n=24 --to n=24
twice explain --type "${PAIR[@]}" --type int --type=char
twice explain --algorithm "${PAIR[@]}" --algorithm direct --algorithm direct
twice explain --max-buffer "${PAIR[@]}" --max-buffer=1M --max-buffer 2M
twice explain --permute --from n=4x6,procs=1 --to n=6x4 --permute 1,0 --permute 1,0
twice explain --relabel "${PAIR[@]}" --relabel --relabel
twice explain --procs "${PAIR[@]}" --procs 2 --procs 3
twice explain --json "${PAIR[@]}" --json --json
twice explain --tables "${PAIR[@]}" --tables --tables
# run: its own options (the shared ones go through the same loop as explain's).
twice run --from --from n=24 --to n=24 --from n=24
twice run --repeat "${PAIR[@]}" --repeat 2 --repeat=3
twice run --verify "${PAIR[@]}" --verify --verify
twice run --quiet "${PAIR[@]}" -q --quiet
twice run --inter "${PAIR[@]}" --inter --inter
twice run --alpha "${PAIR[@]}" --alpha 2 --beta 1 --alpha=3
twice run --beta "${PAIR[@]}" --beta 2 --beta 2
twice run --batch "${PAIR[@]}" --batch 2 --batch 2
twice run --max-buffer "${PAIR[@]}" --max-buffer 1M --max-buffer=1M
# bench, calibrate, simulate.
twice bench --quick --quick --quick
twice bench --procs --procs 1 --procs=1
twice bench --trials --trials 1 --trials 2
twice bench --csv --csv a.csv --csv b.csv
twice bench --plots --plots a --plots=b
twice bench --layouts --layouts --quick --layouts
twice bench --to --from n=24 --to n=24 --to=n=24
twice bench --reduce --from n=24 --to n=24 --reduce sum --reduce max
twice calibrate --output --output a --output b --no-write
twice calibrate --no-write --no-write --no-write
twice calibrate --quick --quick --quick --no-write
twice calibrate --verbose --verbose --verbose --no-write
twice calibrate --threads --threads 2 --threads=3 --no-write
for opt in --procs --K --bytes --Td --tau --d --from --to --nodes --ranks-per-node --pattern \
    --remote-startup --remote-per-byte --machine; do
    case $opt in
        --from | --to) v=1024 ;; --d) v=1 ;; --tau | --Td | --remote-*) v=1e-6 ;;
        --pattern) v=cyclic ;; --machine) v=defaults ;; *) v=8 ;;
    esac
    twice simulate "$opt" "$opt" "$v" "$opt=$v"
done
twice simulate --csv --nodes 2 --csv --csv

# Distinct options are taken together: --alpha with --beta, --procs once, -q once.
mpi run "${PAIR[@]}" --alpha 2 --beta 0.5 --repeat 1 --verify -q
if [[ "$CLI_STATUS" == 0 ]] && grep -q "wrong=0" "$CLI_OUT"; then echo "ok: --alpha and --beta together"
else fail "run --alpha 2 --beta 0.5: exit $CLI_STATUS"; fi
expect_status 0 "$REDIST" explain "${PAIR[@]}" --procs 2 --json

# help takes at most a command; --help, -h and the version take nothing; demo nothing.
usage='(usage: redist help [COMMAND] | redist --help | redist --version)'
for args in "help run extra" "help explain run" "--help run" "-h x" "--version x" "-V x" "version x"; do
    read -r first second third <<<"$args"
    word=${third:-$second}
    # shellcheck disable=SC2086 # the words are a list
    expect_usage "^redist: $first: unexpected argument '$word' \(usage: redist help \[COMMAND\]" \
        "$REDIST" $args
    [[ "$(cat "$CLI_ERR")" == "redist: $first: unexpected argument '$word' $usage" ]] ||
        fail "redist $args: not one line naming '$word'"
done
expect_status 0 "$REDIST" help run
mpi demo --quick
if [[ "$CLI_STATUS" == 2 ]] && grep -q "^redist: demo: unexpected argument '--quick'" "$CLI_ERR"
then echo "ok: demo takes no argument"; else fail "demo --quick: exit $CLI_STATUS"; fi

# A SPEC key given twice, for comparison: refused the same way, exit 2.
expect_usage "^redist: --from: n given twice$" "$REDIST" explain --from n=4,n=5,procs=1 --to n=4
finish
