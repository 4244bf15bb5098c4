#!/usr/bin/env bash
# explain and run agree (docs/tool.md, "explain and run agree"): for every option set below,
# `redist explain --procs P OPTIONS` and `mpiexec -n P redist run OPTIONS` exit with the same
# status, and where they refuse, with the same message (a message that names the command,
# such as "run: --type given twice", names its own); where both succeed, a forced
# algorithm is the one both plan, with the same steps, and both say whether the plan is
# bounded. The sets cover the options the two share (--from, --to, --type, --algorithm,
# --max-buffer, --permute, --relabel, --reduce; pencils and replicated dimensions among the
# specs), alone and together, valid and not (once, explain
# accepted a bound of fewer than two elements that run refused). The communicator size reads
# alike in explain --procs, simulate --procs and bench --procs (simulate refused 2^10 and 1k,
# which explain took; bench refused 2^2).
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT

# P | options (word-split on blanks)
SETS='
2|--from n=24 --to n=24,block=5 --max-buffer 8
2|--from n=24 --to n=24,block=5 --max-buffer 15 --algorithm direct-async
2|--from n=24 --to n=24,block=5 --max-buffer 16
2|--from n=24 --to n=24,block=5 --max-buffer 1 --type char
2|--from n=24 --to n=24,block=5 --max-buffer 2 --type char
2|--from n=24 --to n=24,block=5 --max-buffer 47 --type double3
2|--from n=24 --to n=24,block=5 --max-buffer 0
2|--from n=0 --to n=0 --max-buffer 8
2|--from n=24 --to n=24,block=5 --max-buffer 1M --algorithm direct
2|--from n=24,block=2 --to n=24,block=6 --algorithm gcd --max-buffer 16
4|--from n=64 --to n=64,block=4 --algorithm bmmc --max-buffer 64
4|--from n=64 --to n=64,block=4 --algorithm bmmc
2|--from n=24 --to n=24,block=5 --algorithm bmmc
4|--from n=10,block=3+3+2+2 --to n=10 --algorithm x-to-kx
4|--from n=10,block=3+3+2+2 --to n=10 --max-buffer 16
2|--from n=24,block=2 --to n=24,block=6 --algorithm x-to-kx
3|--from n=48,block=2 --to n=48,block=6 --algorithm direct
3|--from n=48,block=2 --to n=48,block=6 --algorithm indirect
2|--from n=24 --to n=24,block=5 --algorithm nosuch
2|--from n=24 --to n=24 --type float
2|--from n=24 --to n=24,block=5 --max-buffer -1
2|--from n=24,ranks=0:3 --to n=24
2|--from n=24 --to n=24,ranks=2
2|--from n=24 --to n=25
2|--from n=24 --to n=24x1
2|--from n=24,foo=1 --to n=24
2|--from n=24 --to n=24 --relabel --relabel
2|--from n=24 --to n=24 --type int --type char
2|--from n=24 --to n=24 --max-buffer=16 --max-buffer 32
2|--from n=24 --from n=24 --to n=24
2|--from n=24
3|--from n=6x4,grid=3x1 --to n=4x6,grid=1x3 --permute 1,0
3|--from n=6x4,grid=3x1 --to n=6x4,grid=1x3 --permute 1,0
3|--from n=6x4,grid=3x1 --to n=4x6,grid=1x3 --permute 1,0,2
3|--from n=6x4,grid=3x1 --to n=4x6,grid=1x3 --permute 1,0 --relabel
3|--from n=6x4,grid=3x1 --to n=4x6,grid=1x3 --permute 1,0 --algorithm bmmc
3|--from n=6x4,grid=3x1 --to n=4x6,grid=1x3 --permute 1,0 --max-buffer 16
3|--from n=6x4,grid=3x1 --to n=6x4,grid=1x3 --relabel
3|--from n=6x4,grid=3x1 --to n=6x4,grid=1x3 --relabel --max-buffer 16
2|--from n=24 --to n=24 --permute 1
4|--from n=12x10x8,pencil=0 --to n=12x10x8,pencil=2
4|--from n=12x10,grid=2x2,first=0x-1 --to n=12x10,pencil=1 --reduce sum
4|--from n=12x10,grid=2x2,first=0x-1 --to n=12x10,pencil=1 --reduce sum --algorithm direct
2|--from n=12x10,grid=2x1,first=0x-1 --to n=12x10 --reduce max --max-buffer 1k
2|--from n=12x10,grid=2x1,first=-1 --to n=12x10 --reduce band
2|--from n=12x10,grid=2x1 --to n=12x10 --reduce sum --type char
3|--from n=12x10,pencil=1 --to n=12x10,brick --relabel
2|--from n=12x10,pencil=3 --to n=12x10
'

# field VALUE KEY: the value of key=value in a --quiet line.
field() { sed -n "s/.*[^_]$2=\([^ ]*\).*/\1/p" <<<" $1"; }

while IFS='|' read -r np opts; do
    [[ -n "$np" ]] || continue
    # shellcheck disable=SC2086 # the options are a list
    run_cmd 30 "$REDIST" explain --procs "$np" $opts --json
    e_status=$CLI_STATUS e_err=$(cat "$CLI_ERR")
    cp "$CLI_OUT" "$TMP/explain.json"
    # shellcheck disable=SC2086 # the options and MPIEXEC_PREFLAGS are lists
    run_cmd 120 "$MPIEXEC" -n "$np" $MPIEXEC_PREFLAGS "$REDIST" run $opts --repeat 1 --verify --quiet </dev/null
    r_status=$CLI_STATUS r_err=$(grep '^redist' "$CLI_ERR") r_out=$(cat "$CLI_OUT")
    if [[ "$e_status" != "$r_status" ]]; then
        fail "P=$np $opts: explain exits $e_status ($e_err), run exits $r_status ($r_err)"
    elif [[ "$e_status" != 0 && "$(sed 's/^redist: explain:/redist: run:/; s/redist explain --help/redist run --help/' <<<"$e_err")" != "$r_err" ]]; then
        fail "P=$np $opts: explain says '$e_err', run says '$r_err'"
    elif [[ "$e_status" != 0 ]]; then
        echo "ok: P=$np $opts: both exit $e_status: $e_err"
    else
        read -r e_algo e_steps e_bounded < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["algorithm"], d["steps"], int(d["bounded"]))' "$TMP/explain.json")
        r_algo=$(field "$r_out" algorithm) r_steps=$(field "$r_out" steps)
        r_bounded=$(field "$r_out" bounded)
        if [[ "$(field "$r_out" wrong)" != 0 ]]; then fail "P=$np $opts: run not verified: $r_out"
        elif [[ "$e_bounded" != "$r_bounded" ]]; then
            fail "P=$np $opts: explain's plan bounded=$e_bounded, run's bounded=$r_bounded"
        elif [[ "$opts" == *--algorithm* && "$e_algo $e_steps" != "$r_algo $r_steps" ]]; then
            fail "P=$np $opts: explain plans $e_algo in $e_steps steps, run $r_algo in $r_steps"
        else echo "ok: P=$np $opts: both run it (bounded=$r_bounded)"; fi
    fi
done <<<"$SETS"

# The relays' counts: explain walks the row schedule that the plan simulates (relay.c's
# row_walk), for every rank at once, so indirect's and hybrid's most messages and bytes a
# rank sends are the run's: equal where one schedule runs on a line of ranks (1-D table
# cases, forward, dual, with ranks that hold nothing, and the shift table of any other
# pair), at least the run's where explain bounds them (the lcm route adds its two phases'
# maxima; N-D scales the largest column by the largest cross-section). = or >= | P | options
RELAYS='
=|4|--from n=48,block=2 --to n=48,block=6
=|4|--from n=48,block=6 --to n=48,block=2
=|7|--from n=1000,block=3 --to n=1000,block=12,first=2
=|7|--from n=5,block=1 --to n=5,block=3
=|5|--from n=200,block=2,ranks=0-3 --to n=200,block=8,ranks=1-4
=|3|--from n=100,block=1 --to n=100,block=10
=|3|--from n=10,block=3+3+4 --to n=10,block=1
>=|5|--from n=997,block=4 --to n=997,block=6
>=|4|--from n=61x30,block=2x3,grid=2x2 --to n=61x30,block=2x9,grid=2x2
'
while IFS='|' read -r rel np opts; do
    [[ -n "$rel" ]] || continue
    for algo in indirect hybrid; do
        # shellcheck disable=SC2086 # the options are a list
        run_cmd 30 "$REDIST" explain --procs "$np" $opts --algorithm "$algo" --json
        e=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["max_messages_per_rank"], d["max_bytes_per_rank"])' "$CLI_OUT")
        # shellcheck disable=SC2086 # the options and MPIEXEC_PREFLAGS are lists
        run_cmd 120 "$MPIEXEC" -n "$np" $MPIEXEC_PREFLAGS "$REDIST" run $opts --algorithm "$algo" \
            --repeat 1 --verify --quiet </dev/null
        r_out=$(cat "$CLI_OUT")
        r="$(field "$r_out" max_messages_per_rank) $(field "$r_out" max_bytes_per_rank)"
        read -r e_msgs e_bytes <<<"$e"
        read -r r_msgs r_bytes <<<"$r"
        if [[ "$CLI_STATUS" != 0 || "$(field "$r_out" wrong)" != 0 || -z "$e_bytes" || -z "$r_bytes" ]]
        then fail "P=$np $opts $algo: explain says '$e', run exits $CLI_STATUS: $r_out"
        elif [[ "$rel" == "=" && "$e" != "$r" ]] ||
             [[ "$rel" == ">=" && ("$e_msgs" -lt "$r_msgs" || "$e_bytes" -lt "$r_bytes") ]]
        then fail "P=$np $opts $algo: explain's messages and bytes per rank $e, not $rel run's $r"
        else echo "ok: P=$np $opts $algo: explain $e $rel run $r"; fi
    done
done <<<"$RELAYS"

# The communicator size: explain --procs, simulate --procs and each count of bench --procs
# read one grammar (a count as in SPECs: 1024, 1k, 2^10) and take or refuse the same values.
for v in 1024 2^10 1k 2147483647 0 1e3 +5 2^31 " 8" 8x; do
    run_cmd 30 "$REDIST" explain --from n=24,procs=2 --to n=24,procs=2 --procs "$v"
    e_status=$CLI_STATUS
    run_cmd 30 "$REDIST" simulate --procs "$v" --K 1 --from 1 --to 1
    if [[ "$e_status" == "$CLI_STATUS" ]]; then echo "ok: --procs '$v': explain and simulate both exit $e_status"
    else fail "--procs '$v': explain exits $e_status, simulate $CLI_STATUS"; fi
done
# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
run_cmd 60 "$MPIEXEC" -n 2 $MPIEXEC_PREFLAGS "$REDIST" bench --procs 2^1,2^2 </dev/null
if [[ "$CLI_STATUS" == 2 ]] && grep -q "^redist: bench: --procs 4: only 2 ranks were started" "$CLI_ERR"
then echo "ok: bench --procs reads 2^2 as 4"
else fail "bench --procs 2^1,2^2 on 2 ranks: exit $CLI_STATUS, $(grep '^redist' "$CLI_ERR")"; fi
finish
