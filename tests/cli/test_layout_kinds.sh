#!/usr/bin/env bash
# redist run and explain with the layouts beyond block-cyclic grids: FFT pencils, slabs and
# bricks (pencil=AXIS, slab=AXIS, brick), boxes from a file (boxes=FILE), replicated grid
# dimensions (first=-1) on either side, and partial sums (--reduce OP), each run verified
# element by element by the tool's own check on 1 to 4 ranks (with ranks that hold nothing);
# malformed SPECs and refused combinations are usage errors with the documented messages.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT

check_run() { # name, expected element count, ranks, then redist run's arguments
    local name=$1 count=$2 np=$3
    shift 3
    # shellcheck disable=SC2086
    run_cmd 120 "$MPIEXEC" $MPIEXEC_PREFLAGS -n "$np" "$REDIST" run "$@" --verify --repeat 1
    if [[ "$CLI_STATUS" != 0 ]]; then fail "$name: exit $CLI_STATUS"
    elif ! grep -q "verified   all $count elements correct" "$CLI_OUT"; then fail "$name: not verified"
    else echo "ok: $name"; fi
}

# Pencils, slabs, bricks and boxes on 1 to 4 ranks: pencils to pencils (an FFT's transpose
# step; on 1 rank with --reduce max, whose one holder per element is the identity), a slab to
# pencils with the axes permuted, a file of boxes held by ranks 0-2 of 4 (rank 3 holds
# nothing) to bricks.
check_run "x-pencils -> z-pencils, --reduce max, 1 rank" 960 1 \
    --from n=12x10x8,pencil=0 --to n=12x10x8,pencil=2,order=col --reduce max
check_run "x-pencils -> z-pencils, 2 ranks" 960 2 --from n=12x10x8,pencil=0 --to n=12x10x8,pencil=2
check_run "slab -> pencils, axes permuted, 3 ranks" 960 3 \
    --from n=12x10x8,slab=2 --to n=8x12x10,pencil=1,order=col --permute 2,0,1
cat >"$TMP/boxes.txt" <<'EOF'
# lower corner, upper corner: one line per rank
0x0 6x10
6x0 12x4

6x4 12x10
EOF
check_run "boxes file -> bricks, 4 ranks" 120 4 \
    --from "n=12x10,boxes=$TMP/boxes.txt" --to n=12x10,brick --type int
# Replicated dimensions on either side, and partial sums: every source holder holds (rank + 1)
# times the value (bxor: the value xor a mask of its rank), the destination their reduction.
check_run "replicated source (first=0x-1) -> pencils, --reduce sum, 4 ranks" 120 4 \
    --from n=12x10,block=5x1,grid=2x2,first=0x-1 --to n=12x10,pencil=1 --reduce sum
check_run "cyclic -> replicated destination (first=-1), 2 of 3 ranks" 120 3 \
    --from n=12x10,block=3x2,procs=3 --to n=12x10,grid=1x2,first=-1
cat >"$TMP/replicas.txt" <<'EOF'
0x0 6x10
0x0 6x10
6x0 12x10
6x0 12x10
EOF
check_run "identical boxes -> a replicated grid, --reduce sum, int, 4 ranks" 120 4 \
    --from "n=12x10,boxes=$TMP/replicas.txt" --to n=12x10,grid=2x2,first=-1x0 --reduce sum \
    --type int
check_run "replicas -> cyclic, --reduce bxor, int, 3 ranks" 120 3 \
    --from n=12x10,grid=1x3,first=0x-1 --to n=12x10,block=4x3,grid=3x1 --reduce bxor --type int

# explain shows what the new specs mean; bad specs and refusals are usage errors.
run_cmd 60 "$REDIST" explain --from n=64x64x64,pencil=0,procs=4 --to n=64x64x64,slab=2 --reduce sum
if [[ "$CLI_STATUS" != 0 ]]; then fail "explain pencil -> slab: exit $CLI_STATUS"
elif ! grep -q "^  from     n=64x64x64,pencil=0,procs=4,ranks=0-3,order=row (pencil along 0 over a 2x2 grid)$" "$CLI_OUT" ||
    ! grep -q "(slab along 2, dimension 0 split over 4 ranks)$" "$CLI_OUT" ||
    ! grep -q "^  reduce   sum of the parts every source holder holds (options.reduce = MPI_SUM)$" "$CLI_OUT"; then
    fail "explain pencil -> slab: the from, to and reduce lines"
else echo "ok: explain describes pencils, slabs and the reduction"; fi
expect_usage "boxes: .*bad.txt:2: the upper corner's 13 is beyond n = 12 along dimension 0" \
    bash -c "printf '0x0 6x10\n6x0 13x10\n' >'$TMP/bad.txt'; '$REDIST' explain --from n=12x10,boxes='$TMP/bad.txt' --to n=12x10"
expect_usage "3 boxes \(one per rank\) but the communicator has 2 processes" "$REDIST" explain \
    --from "n=12x10,boxes=$TMP/boxes.txt" --to n=12x10 --procs 2
expect_usage "boxes: cannot read '$TMP/none.txt': No such file or directory" "$REDIST" explain \
    --from "n=12x10,boxes=$TMP/none.txt" --to n=12x10
expect_usage "pencil: dimension 2, but n has 2 \(0 to 1\)" "$REDIST" explain \
    --from n=12x10,pencil=2,procs=2 --to n=12x10
expect_usage "block: not with pencil" "$REDIST" explain --from n=12x10,pencil=0,block=2,procs=2 \
    --to n=12x10
expect_usage "first: expected a grid coordinate or -1 \(replicated\), got '-2'" "$REDIST" explain \
    --from n=12x10,grid=2x2,first=0x-2 --to n=12x10
expect_usage "--reduce: expected sum, prod, max, min, land, lor, lxor, band, bor or bxor, got 'avg'" \
    "$REDIST" explain --from n=12x10,procs=2 --to n=12x10 --reduce avg
expect_usage "--reduce band with --type double: MPI defines the logical and bitwise ops" "$REDIST" \
    explain --from n=12x10,procs=2 --to n=12x10 --reduce band
expect_usage "--relabel: --from has a replicated dimension" "$REDIST" explain \
    --from n=12x10,grid=2x2,first=-1x0 --to n=12x10 --relabel
finish
