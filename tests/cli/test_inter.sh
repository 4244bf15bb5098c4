#!/usr/bin/env bash
# redist run --inter: the first ranks send, the others receive, through an intercommunicator.
# Every destination element is verified; bad command lines exit 2 naming the problem.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
mpi() { local n=$1; shift; run_cmd 120 "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "$REDIST" "$@"; }

expect_verified() {
    if [[ "$CLI_STATUS" != 0 ]] || ! grep -q "verified .*all .* elements correct" "$CLI_OUT"; then
        fail "not verified (exit $CLI_STATUS): $*"
    else echo "ok: verified: $*"; fi
}

# shellcheck disable=SC2086
for args in "--from n=100000,block=8,procs=2 --to n=100000,block=3" \
            "--from n=100000,block=8,procs=1 --to n=100000,block=50000,procs=2" \
            "--from n=300x200,block=16x8,grid=1x2,order=col --to n=300x200,block=7x9,grid=3x1" \
            "--from n=999,block=5,ranks=2:0:1 --to n=999,block=2,ranks=1:0 --type char" \
            "--from n=64,block=4,procs=3 --to n=64,block=1,procs=1 --algorithm direct"; do
    mpi 5 run --inter $args --verify --repeat 2
    expect_verified "$args"
done

mpi 3 run --inter --from n=100 --to n=100 --verify
if [[ "$CLI_STATUS" == 2 ]] && grep -q "source group" "$CLI_ERR"; then echo "ok: --from must name its group"
else fail "--from without processes: exit $CLI_STATUS"; fi
mpi 3 run --inter --from n=100,procs=3 --to n=100 --verify
if [[ "$CLI_STATUS" == 2 ]] && grep -q "none are left" "$CLI_ERR"; then echo "ok: no receiving group"
else fail "no receiving group: exit $CLI_STATUS"; fi
mpi 3 run --inter --from n=100,procs=1 --to n=100,procs=3 --verify
if [[ "$CLI_STATUS" == 2 ]] && grep -q "receiving group has 2" "$CLI_ERR"; then echo "ok: --to beyond its group"
else fail "--to beyond its group: exit $CLI_STATUS"; fi
finish
