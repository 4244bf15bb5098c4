#!/usr/bin/env bash
# The exact one-line messages and exit statuses of bad command lines and SPECs (docs/tool.md),
# and the verdict lines of run and demo under MPI: each error names its field, only rank 0
# prints, and the status is the same whichever step refused.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# expect_message STATUS LINE CMD...: CMD exits STATUS with nothing on stdout and exactly LINE
# on stderr.
expect_message() {
    local want=$1 line=$2; shift 2
    run_cmd "$@"
    if [[ "$CLI_STATUS" != "$want" ]]; then fail "exit $CLI_STATUS (want $want): $*"
    elif [[ -s "$CLI_OUT" ]]; then fail "stdout not empty: $*"
    elif [[ "$(cat "$CLI_ERR")" != "$line" ]]; then fail "stderr is not '$line': $*"
    else echo "ok: exit $want, '$line'"; fi
}

# spec_error SPEC MESSAGE: SPEC given as --from (and as --to) is refused with MESSAGE.
spec_error() {
    expect_message 2 "redist: --from: $2" "$REDIST" explain --from "$1" --to n=10,procs=2
    expect_message 2 "redist: --to: $2" "$REDIST" explain --to "$1" --from n=10,procs=2 --json
}

# ---- SPEC: the first thing wrong is the one named. ---------------------------------------
spec_error '' 'empty spec (expected e.g. n=1000000,block=4,procs=8)'
spec_error 'n=10,,procs=2' 'empty item (a stray comma?)'
spec_error 'n=10,' 'empty item (a stray comma?)'
KEYS='keys: n, block, procs, grid, first, ranks, order, boxes, pencil, slab, brick'
spec_error 'n=10,procs' "'procs': expected key=value ($KEYS)"
spec_error 'n=10,foo=3' "unknown key 'foo' ($KEYS)"
spec_error 'N=10,n=3' 'n given twice'
spec_error 'n=10,procs=' 'procs: empty value'
spec_error 'block=3,procs=2' 'missing n (the extents, e.g. n=1000 or n=4000x4000)'
spec_error 'n=1x2x3x4x5x6x7x8x9,procs=2' 'n: too many dimensions (at most 8)'
spec_error 'n=-3,procs=2' "n: expected a non-negative integer, got '-3'"
spec_error 'n=2^63,procs=2' 'n: 2^63 is too large'
spec_error 'n=2^31x2^31x2,procs=2' 'n: the array has more than 2^62 elements'
spec_error 'n=10,block=0,procs=0' "block: expected a positive integer, got '0'"
spec_error 'n=10x10,block=2x2x2,procs=2' 'block has 3 dimensions but n has 2'
spec_error 'n=10,procs=0,ranks=x' "procs: expected a positive integer, got '0'"
spec_error 'n=10,procs=3G' 'procs: 3G is too large'
spec_error 'n=10,ranks=x,grid=3' "ranks: expected a rank or a range a-b, got 'x'"
spec_error 'n=10,ranks=0-3:' "ranks: expected a rank or a range a-b, got ''"
spec_error 'n=10,ranks=a-3' "ranks: expected a range a-b of ranks, got 'a-3'"
spec_error 'n=10,ranks=2147483647' "ranks: rank too large in '2147483647'"
spec_error 'n=10,ranks=0-1500000000:0-1500000000' 'ranks: too many ranks'
spec_error 'n=10x10,grid=2,first=5' 'grid has 1 dimension but n has 2'
spec_error 'n=10x10,grid=70000x70000' 'grid: 70000x70000 has too many processes'
spec_error 'n=10,grid=2,procs=3,first=5' 'procs=3 but grid=2 has 2 processes'
spec_error 'n=10,first=0x0,procs=2' 'first has 2 dimensions but n has 1'
spec_error 'n=10x10,grid=2x2,first=1x2' \
    'first: coordinate 2 must be below the grid extent 2 (dimension 1)'
spec_error 'n=10,ranks=0-2,grid=2' 'ranks lists 3 ranks but the grid has 2 processes'
spec_error 'n=10,ranks=3:1:0:1' 'ranks: rank 1 appears twice'
spec_error 'n=10,ranks=0:1,order=x' "order: expected row or col, got 'x'"
# Without procs, grid or ranks on either side (and no --procs) nothing says how many.
expect_message 2 'redist: --from: missing procs, grid or ranks (or give --procs P)' \
    "$REDIST" explain --from n=10 --to n=10

# ---- explain's options. -----------------------------------------------------------------
expect_message 2 "redist: explain: unexpected argument '--verify' (see redist explain --help)" \
    "$REDIST" explain --from n=10,procs=2 --to n=10 --verify
expect_message 2 'redist: --procs needs a value' \
    "$REDIST" explain --from n=10,procs=2 --to n=10 --procs
expect_message 2 "redist: --procs: expected a positive integer, got '2^31'" \
    "$REDIST" explain --from n=10,procs=2 --to n=10 --procs=2^31
expect_message 2 "redist: --type: expected char, int, double or double3, got 'float'" \
    "$REDIST" explain --from n=10,procs=2 --to n=10 --type float
expect_message 2 'redist: explain: --to is required (see redist explain --help)' \
    "$REDIST" explain --from n=10,procs=2
expect_message 2 'redist: --to: n differs from --from'"'"'s n' \
    "$REDIST" explain --from n=10,procs=2 --to n=12
expect_message 2 'redist: --to: uses rank 5 but the communicator has 3 processes (run: start more with mpirun -n; explain: give --procs; or give ranks=)' \
    "$REDIST" explain --from n=10 --to n=10,ranks=0:5 --procs=3
expect_message 1 "redist: plan (bmmc): the algorithm cannot perform this redistribution (algorithm 'bmmc' needs a bit permutation: a 1-D pair on one process set (the same ranks, first coordinate 0) with N, P and both blocks powers of two and block x P <= N)" \
    "$REDIST" explain --from n=1000,block=4 --to n=1000,block=16 --procs 8 --algorithm bmmc
expect_message 1 "redist: plan (gcd): the algorithm cannot perform this redistribution (algorithm 'gcd' needs the same ranks, grid and first coordinates on both sides (no irregular blocks, no window starting inside a block))" \
    "$REDIST" explain --from n=1000,block=4,procs=8 --to n=1000,block=6,procs=4 --algorithm gcd
expect_message 1 "redist: plan (alltoallv): the algorithm cannot perform this redistribution (algorithm 'alltoallv' cannot bound its buffers (max_buffer_bytes): direct-async and the section algorithms can)" \
    "$REDIST" explain --from n=1000,block=4 --to n=1000,block=6 --procs 4 --algorithm alltoallv --max-buffer 1024

# ---- Under MPI: run's messages from rank 0 only, run and demo verify. ----------------------
if [[ -n "${MPIEXEC:-}" ]]; then
    # MPIEXEC_PREFLAGS is a space-separated list of flags (split on purpose).
    # shellcheck disable=SC2206
    MPIRUN=("$MPIEXEC" ${MPIEXEC_NUMPROC_FLAG:--n} 2 ${MPIEXEC_PREFLAGS:-})
    # mpiexec adds its own lines about the failed job: only redist's are compared.
    expect_mpi_error() {
        local line=$1; shift
        run_cmd 60 "${MPIRUN[@]}" "$REDIST" "$@"
        if [[ "$CLI_STATUS" == 0 ]]; then fail "exit 0: $*"
        elif [[ "$(grep '^redist' "$CLI_ERR")" != "$line" ]]; then
            fail "redist's stderr is not '$line': $*"
        else echo "ok: '$line' once: $*"; fi
    }
    expect_mpi_error "redist: --repeat: expected n1xn2 or R (positive integers), got '2xq'" \
        run --from n=48,block=2 --to n=48,block=6 --repeat 2xq
    expect_mpi_error "redist: run: unexpected argument '--json' (see redist run --help)" \
        run --from n=48,block=2 --to n=48,block=6 --json
    too_few="redist: --from: uses rank 5 but the communicator has 2 processes"
    too_few+=" (run: start more with mpirun -n; explain: give --procs; or give ranks=)"
    expect_mpi_error "$too_few" \
        run --from n=48,block=2,ranks=0:5 --to n=48,block=6
    expect_mpi_error "redist: --to: unknown key 'foo' ($KEYS)" \
        run --from n=48,block=2 --to n=48,block=6,foo=2
    run_cmd 60 "${MPIRUN[@]}" "$REDIST" run --from n=48,block=2 --to n=48,block=6 \
        --algorithm bmmc
    if [[ "$CLI_STATUS" == 0 ]] || ! grep -q '^redist: plan (bmmc): ' "$CLI_ERR"; then
        fail "run --algorithm bmmc: exit $CLI_STATUS, no 'plan (bmmc)' line"
    else echo "ok: run --algorithm bmmc fails naming the plan"; fi

    run_cmd 60 "${MPIRUN[@]}" "$REDIST" run --from n=1000x1000,block=7x9,grid=2x1 \
        --to n=1000x1000,block=64,grid=1x2,order=col --type double3 --verify --repeat 2x2
    if [[ "$CLI_STATUS" != 0 ]] ||
        ! grep -q '^  verified   all 1000000 elements correct$' "$CLI_OUT"; then
        fail "run 2-D double3 --verify: exit $CLI_STATUS"
    else echo "ok: run 2-D double3 --verify on 2 ranks"; fi
    run_cmd 60 "${MPIRUN[@]}" "$REDIST" run --from n=1000,block=7,ranks=1 --to n=1000,block=64 \
        --type int --algorithm direct --verify --quiet --repeat 2
    if [[ "$CLI_STATUS" != 0 ]] ||
        ! grep -Eq '^algorithm=direct n1=2 n2=1 .* steps=1 .* wrong=0$' "$CLI_OUT"; then
        fail "run --quiet --verify: exit $CLI_STATUS"
    else echo "ok: run --quiet --verify prints one key=value line"; fi

    run_cmd 120 "${MPIRUN[@]}" "$REDIST" demo
    if [[ "$CLI_STATUS" != 0 ]]; then fail "demo on 2 ranks: exit $CLI_STATUS"
    elif ! grep -q '^     correct: auto (-> ' "$CLI_OUT" ||
        ! grep -q '^verified: all elements correct (' "$CLI_OUT"; then
        fail "demo on 2 ranks: no 'correct:' list or no verdict"
    else echo "ok: demo on 2 ranks verifies every algorithm"; fi
    expect_mpi_error "redist: demo: unexpected argument 'x' (see redist demo --help)" demo x
else
    echo "skip: MPIEXEC not set, no redist run or demo under MPI"
fi

finish
