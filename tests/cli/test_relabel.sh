#!/usr/bin/env bash
# redist run --relabel: the destination's ranks chosen by redist_relabel, every element
# verified. A destination that is the source shifted by one coordinate moves nothing once
# relabelled; re-blocking on the same grid still runs and verifies; --relabel with --inter is
# a usage error.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"

# shellcheck disable=SC2086
run_cmd 120 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 3 "$REDIST" run --from n=999,block=111 \
    --to n=999,block=111,first=1 --relabel --verify --repeat 2
if [[ "$CLI_STATUS" != 0 ]]; then fail "shifted: exit $CLI_STATUS"
elif ! grep -q "999 elements stay, 0 cross" "$CLI_OUT"; then fail "shifted: not all in place"
elif ! grep -q "verified   all 999 elements correct" "$CLI_OUT"; then fail "shifted: not verified"
else echo "ok: a shifted destination, relabelled, moves nothing and verifies"; fi

# shellcheck disable=SC2086
run_cmd 120 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 4 "$REDIST" run --from n=60x50,block=4x3,grid=2x2 \
    --to n=60x50,block=7x5,grid=4x1,ranks=3:0-2 --relabel --verify --repeat 2
if [[ "$CLI_STATUS" != 0 ]]; then fail "2-D: exit $CLI_STATUS"
elif ! grep -q "verified   all 3000 elements correct" "$CLI_OUT"; then fail "2-D: not verified"
else echo "ok: 2-D re-blocking relabelled, verified"; fi

# shellcheck disable=SC2086
run_cmd 60 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 2 "$REDIST" run --from n=10,procs=1 --to n=10,procs=1 \
    --relabel --inter
if [[ "$CLI_STATUS" != 2 ]] || ! grep -q "exclude each other" "$CLI_ERR"; then
    fail "--relabel --inter: exit $CLI_STATUS, want 2 and a message"
else echo "ok: --relabel --inter is a usage error"; fi
# explain --relabel, without MPI: the same answer as redist_relabel's (cyclic(1) -> cyclic(3)
# on 8 ranks moves 3495253 elements with the given ranks, 2796202 relabelled: bench_relabel).
run_cmd 60 "$REDIST" explain --from n=4194304,block=1,procs=8 --to n=4194304,block=3,procs=8 \
    --relabel --json
if [[ "$CLI_STATUS" != 0 ]]; then fail "explain --relabel: exit $CLI_STATUS"
elif ! python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["relabel"]; \
        sys.exit(0 if (r["moved"], r["given_moved"], r["kept"]) == (2796202, 3495253, 1398102) else 1)' \
        "$CLI_OUT"; then fail "explain --relabel: volumes"
else echo "ok: explain --relabel reports the volumes before and after"; fi
run_cmd 60 "$REDIST" explain --from n=999,block=111,procs=3 --to n=999,block=111,procs=3,first=1 \
    --relabel
if ! grep -q "0 elements cross between ranks (999 with the given ranks), 999 stay" "$CLI_OUT"; then
    fail "explain --relabel: text"
else echo "ok: explain --relabel's line"; fi
expect_usage "at most 4096" "$REDIST" explain --from n=100,procs=5000 --to n=100,procs=5000 --relabel
finish
