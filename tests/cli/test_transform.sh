#!/usr/bin/env bash
# redist run and explain with transforms: --permute (axis permutation) on 2-D and 3-D arrays
# between different grids, blocks and storage orders, and --alpha/--beta scaling, each run
# verified element by element on 1 to 5 ranks (with ranks that hold nothing); bad
# permutations and mismatched extents are usage errors (exit 2); explain --permute plans the
# same transposes without MPI; irregular blocks (block=3+3+2+2) run verified and bad ones are
# usage errors; batches (--batch K) run verified.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"

check_run() { # name, expected element count, then the command
    local name=$1 count=$2
    shift 2
    run_cmd 180 "$@"
    if [[ "$CLI_STATUS" != 0 ]]; then fail "$name: exit $CLI_STATUS"
    elif ! grep -q "verified   all $count elements correct" "$CLI_OUT"; then fail "$name: not verified"
    else echo "ok: $name"; fi
}

for np in 1 2 3 5; do
    # shellcheck disable=SC2086
    check_run "2-D transpose on $np ranks" 12000 "$MPIEXEC" $MPIEXEC_PREFLAGS -n "$np" "$REDIST" \
        run --from n=120x100,block=16x8,order=col --to n=100x120,block=32x5,order=col \
        --permute 1,0 --verify --repeat 2
done
# Local extents past the transposes' 512 x 512 super-tiles (and their 64 x 64 tiles).
for np in 1 2; do
    # shellcheck disable=SC2086
    check_run "1100 x 700 transpose across super-tiles on $np ranks" 770000 "$MPIEXEC" \
        $MPIEXEC_PREFLAGS -n "$np" "$REDIST" run --from n=1100x700,block=100x700 \
        --to n=700x1100,block=700x550 --permute 1,0 --alpha 2 --beta 0.5 --verify \
        --repeat 2
done
# shellcheck disable=SC2086
check_run "3-D pencils, axes 2,0,1, 4 ranks" 96000 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 4 "$REDIST" \
    run --from n=40x60x40,block=10x60x40,grid=4x1x1 --to n=40x40x60,block=40x40x15,grid=1x1x4 \
    --permute 2,0,1 --verify --repeat 2
# shellcheck disable=SC2086
check_run "3-D, row to column order, 3 of 5 ranks" 24000 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 5 \
    "$REDIST" run --from n=20x30x40,block=3x4x5,grid=3x1x1 \
    --to n=30x40x20,block=7x2x5,grid=1x1x2,ranks=4:2,order=col --permute 1,2,0 --verify --repeat 2
# shellcheck disable=SC2086
check_run "scaled transpose (alpha 2.5, beta -0.5)" 6000 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 3 \
    "$REDIST" run --from n=100x60,block=7x9 --to n=60x100,block=16x16,order=col --permute 1,0 \
    --alpha 2.5 --beta -0.5 --verify --repeat 3
# shellcheck disable=SC2086
check_run "scaled copy (alpha -1)" 1000 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 2 "$REDIST" run \
    --from n=1000,block=7 --to n=1000,block=100 --alpha -1 --verify --repeat 2

# Irregular blocks (block=3+3+2+2: HPF 2's GEN_BLOCK), empty blocks included, to cyclic and to
# other irregular blocks, with and without a permutation.
for np in 1 2 4; do
    sizes=$(python3 -c "import sys; n=$np; print('+'.join(str(60 // n + (i < 60 % n)) for i in range(n)))")
    # shellcheck disable=SC2086
    check_run "PETSc-style split $sizes -> cyclic(7) on $np ranks" 60 "$MPIEXEC" $MPIEXEC_PREFLAGS \
        -n "$np" "$REDIST" run --from "n=60,block=$sizes" --to n=60,block=7 --verify --repeat 2
done
# shellcheck disable=SC2086
check_run "irregular 2-D with an empty block, transposed, 4 ranks" 600 "$MPIEXEC" \
    $MPIEXEC_PREFLAGS -n 4 "$REDIST" run --from n=30x20,block=10+0+15+5x4,grid=4x1 \
    --to n=20x30,block=5x9+9+12,grid=1x3,ranks=3:0:1 --permute 1,0 --verify --repeat 2
# shellcheck disable=SC2086
check_run "irregular to irregular, 5 ranks" 100 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 5 "$REDIST" run \
    --from n=100,block=1+49+0+25+25 --to n=100,block=33+33+34,grid=3,ranks=4:2:0 --verify --repeat 2
expect_usage "3 sizes along dimension 0, but the grid has 4" "$REDIST" explain \
    --from n=10,block=3+3+4,procs=4 --to n=10,procs=4
expect_usage "do not sum to n = 10" "$REDIST" explain --from n=10,block=3+3+2+1,procs=4 \
    --to n=10,procs=4
expect_usage "'-3' is not a block size" "$REDIST" explain --from n=10,block=3+-3+2+1,procs=4 \
    --to n=10,procs=4
run_cmd 60 "$REDIST" explain --from n=10,block=3+3+2+2,procs=4 --to n=10,block=4,procs=4
if [[ "$CLI_STATUS" != 0 ]] || ! grep -q "block=3+3+2+2" "$CLI_OUT"; then
    fail "explain with irregular blocks: exit $CLI_STATUS"
else echo "ok: explain shows the irregular blocks in canonical form"; fi

# Separate programs (--inter): a transpose, and irregular blocks scaled and transposed.
# shellcheck disable=SC2086
check_run "transpose between two groups (--inter)" 600 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 4 \
    "$REDIST" run --from n=30x20,block=4x3,procs=2 --to n=20x30,block=5x7,order=col \
    --permute 1,0 --inter --verify --repeat 2
# shellcheck disable=SC2086
check_run "irregular, scaled and transposed between groups" 600 "$MPIEXEC" $MPIEXEC_PREFLAGS \
    -n 5 "$REDIST" run --from n=30x20,block=10+0+20x3,grid=3x1 --to n=20x30,block=5x7,order=col \
    --permute 1,0 --inter --alpha 3 --beta 1 --verify --repeat 2

# Batches: K copies of a pair in one plan, every destination verified.
for np in 1 3 4; do
    # shellcheck disable=SC2086
    check_run "batch of 5 transposes on $np ranks" 3000 "$MPIEXEC" $MPIEXEC_PREFLAGS -n "$np" \
        "$REDIST" run --from n=60x50,block=4x3 --to n=50x60,block=7x5,order=col --permute 1,0 \
        --batch 5 --verify --repeat 2
done
# shellcheck disable=SC2086
check_run "scaled batch of 3, irregular blocks" 600 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 3 "$REDIST" \
    run --from n=600,block=100+0+500 --to n=600,block=13 --batch 3 --alpha 2 --beta 0.5 \
    --verify --repeat 2
# shellcheck disable=SC2086
run_cmd 60 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 2 "$REDIST" run --from n=10 --to n=10 --batch 0
if [[ "$CLI_STATUS" != 2 ]] || ! grep -q "from 1 to 64" "$CLI_ERR"; then
    fail "--batch 0: exit $CLI_STATUS, want 2"
else echo "ok: --batch 0 is a usage error"; fi

expect_usage "not --from's n permuted" "$REDIST" explain --from n=40x30,procs=4 \
    --to n=40x30,procs=2 --permute 1,0
expect_usage "expected a permutation" "$REDIST" explain --from n=40x30,procs=4 \
    --to n=30x40,procs=2 --permute 1,1
expect_usage "2 entries for 3 dimensions" "$REDIST" explain --from n=4x5x6,procs=2 \
    --to n=5x4x6,procs=2 --permute 1,0
# shellcheck disable=SC2086
run_cmd 60 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 2 "$REDIST" run --from n=10,procs=2 --to n=10,procs=2 \
    --type int --alpha 2
if [[ "$CLI_STATUS" != 2 ]] || ! grep -q "type double" "$CLI_ERR"; then
    fail "--alpha with --type int: exit $CLI_STATUS, want 2 and a message"
else echo "ok: --alpha with --type int is a usage error"; fi

run_cmd 60 "$REDIST" explain --from n=4096x4096,block=32x32,grid=2x2,order=col \
    --to n=4096x4096,block=128x128,grid=2x2,order=col --permute 1,0 --json
if [[ "$CLI_STATUS" != 0 ]]; then fail "explain --permute: exit $CLI_STATUS"
elif ! python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); \
        sys.exit(0 if r["max_bytes_per_rank"] == 25165824 and r["permutation"] == [1, 0] \
                 else 1)' "$CLI_OUT"; then
    fail "explain --permute: bytes per rank"
else echo "ok: explain --permute plans a 4096^2 transpose (25165824 bytes per rank)"; fi
finish
