#!/usr/bin/env bash
# redist bench and demo with the layouts beyond block-cyclic (docs/tool.md, "redist bench" and
# "redist demo"):
# - bench --from SPEC --to SPEC runs the user's pair through every algorithm and auto as the
#   grid's cases run (each plan checked element by element, then timed): a pair of boxes
#   (boxes=FILE; on 3 ranks one rank holds no source box), a replicated source (first=-1; on
#   3 ranks with --procs 2,3, one case per count) and partial sums (--reduce sum), on 1, 2
#   and 3 ranks. The CSV has one row per algorithm the library has and case, exactly the ones
#   explain finds applicable for the same pair marked applicable, one best, auto's choice the
#   one explain names; stdout lists every algorithm once under the case line, the ones that do
#   not apply as such;
# - bench --layouts adds its kinds to the grid (x-pencils -> y-pencils as boxes, rep->shard,
#   shard->rep, sum->shard), partial sums going through the reducing algorithms only;
# - wrong usage exits 2 with one line naming what is wrong; a pair the library refuses, 1;
# - demo's third part on 1 and 3 ranks: its three lines, auto's choices as explain's, and the
#   verdict counting every element the three parts checked.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT
cd "$TMP" || exit 1

# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
mpi() { # ranks, then redist's arguments
    local np=$1
    shift
    run_cmd 120 "$MPIEXEC" -n "$np" $MPIEXEC_PREFLAGS "$REDIST" "$@" </dev/null
}

# check_pair NAME NP PROCS -- FROM TO [REDUCE]: bench --from FROM --to TO on NP ranks, one
# case per count of PROCS (comma-separated; --procs is given unless PROCS is NP), checked
# against explain's account of the same pair on each count.
check_pair() {
    local name=$1 np=$2 procs=$3 from=$4 to=$5 reduce=${6:-}
    local args=(bench --from "$from" --to "$to" --trials 2 --csv "$TMP/pair.csv")
    [[ -n "$reduce" ]] && args+=(--reduce "$reduce")
    [[ "$procs" != "$np" ]] && args+=(--procs "$procs")
    rm -f "$TMP"/explain-*.json
    local p
    for p in ${procs//,/ }; do
        local ex=(explain --from "$from" --to "$to" --procs "$p" --json)
        [[ -n "$reduce" ]] && ex+=(--reduce "$reduce")
        run_cmd 30 "$REDIST" "${ex[@]}"
        if [[ "$CLI_STATUS" != 0 ]]; then fail "$name: explain on $p: exit $CLI_STATUS"; return; fi
        cp "$CLI_OUT" "$TMP/explain-$p.json"
    done
    mpi "$np" "${args[@]}"
    if [[ "$CLI_STATUS" != 0 ]]; then fail "$name: exit $CLI_STATUS"; return; fi
    if python3 - "$TMP/pair.csv" "$CLI_OUT" "$procs" "${reduce:-}" "$TMP" <<'PY'; then echo "ok: $name"
import csv, json, re, sys
path, out, procs, reduce, tmp = sys.argv[1:6]
procs = [int(p) for p in procs.split(",")]
rows = list(csv.DictReader(open(path)))
lines = open(out).read().split("\n")
cases = {}
for r in rows:
    cases.setdefault(int(r["case"]), []).append(r)
assert sorted(cases) == list(range(len(procs))), sorted(cases)
case_lines = [l for l in lines if re.match(r"^  \dD P=\d+ pair ", l)]
assert len(case_lines) == len(procs), case_lines
for k, p in enumerate(procs):
    rs, ex = cases[k], json.load(open(f"{tmp}/explain-{p}.json"))
    names = [a["name"] for a in ex["algorithms"]]
    assert [r["algorithm"] for r in rs] == names, ([r["algorithm"] for r in rs], names)
    applicable = {a["name"] for a in ex["algorithms"] if a["applicable"]}
    assert {r["algorithm"] for r in rs if r["applicable"] == "1"} == applicable, (rs, applicable)
    assert all(r["kind"] == "pair" and r["reduce"] == reduce and int(r["procs"]) == p and
               r["ratio"] == "" and int(r["elements"]) == ex["elements"] for r in rs), rs[0]
    ok = [r for r in rs if r["applicable"] == "1"]
    assert all(float(r["measured_s"]) > 0 and float(r["predicted_s"]) > 0 for r in ok), ok
    na = [r for r in rs if r["applicable"] == "0"]
    assert all(r["measured_s"] == r["predicted_s"] == "" and r["best"] == "0" for r in na), na
    best = [r for r in ok if r["best"] == "1"]
    assert len(best) == 1 and best[0]["algorithm"] != "auto", best
    assert all(float(r["measured_s"]) >= float(best[0]["measured_s"])
               for r in ok if r["algorithm"] != "auto"), k
    chosen = [r["algorithm"] for r in rs if r["auto_choice"] == "1"]
    assert chosen == [ex["algorithm"]], (chosen, ex["algorithm"])
    auto = [r for r in ok if r["algorithm"] == "auto"][0]
    regret = float(auto["measured_s"]) / float(best[0]["measured_s"])
    assert abs(float(auto["regret"]) - regret) < 1e-3 * regret, (auto["regret"], regret)
    # stdout: the case line names auto's choice, then every algorithm once, in the library's
    # order, the ones that do not apply as such
    at = lines.index(case_lines[k])
    assert f"auto -> {ex['algorithm']} " in case_lines[k], case_lines[k]
    assert lines[at + 1].split() == ["algorithm", "measured", "predicted"], lines[at + 1]
    table = lines[at + 2:at + 2 + len(names)]
    assert table[0].startswith(f"     auto -> {ex['algorithm']} "), table[0]
    for line, r in zip(table[1:], rs[1:]):
        assert line.startswith(f"     {r['algorithm']} "), (line, r["algorithm"])
        assert line.endswith("not applicable") == (r["applicable"] == "0"), line
    if reduce:
        assert any(l.startswith("  reduce   ") for l in lines[:at]), "no reduce line"
assert re.search(rf"^auto within 15% of the best algorithm in \d of {len(procs)} cases?", "\n".join(lines), re.M)
PY
    else fail "$name: the output or CSV is wrong (above)"; sed -n 1,40p "$CLI_OUT"; fi
}

# boxes of n=12x10 for 1, 2 and 3 ranks; on 3, two boxes: rank 2 holds no source element
printf '0x0 12x10\n' >boxes-1.txt
printf '0x0 12x4\n0x4 12x10\n' >boxes-2.txt
printf '# rows 0-6 on rank 0, the rest on rank 1\n0x0 7x10\n\n7x0 12x10\n' >boxes-3.txt
for np in 1 2 3; do
    check_pair "bench boxes=FILE -> bricks, $np rank(s)" "$np" "$np" \
        "n=12x10,boxes=boxes-$np.txt" n=12x10,brick
done
check_pair "bench replicated (first=-1) -> cyclic(4x3), 1 rank" 1 1 n=12x10,first=-1 n=12x10,block=4x3
check_pair "bench replicated (first=-1) -> cyclic(4x3), 2 ranks" 2 2 n=12x10,first=-1 n=12x10,block=4x3
check_pair "bench replicated (first=-1) -> cyclic(4x3), --procs 2,3 on 3 ranks" 3 2,3 \
    n=12x10,first=-1 n=12x10,block=4x3
for np in 1 2 3; do
    check_pair "bench partial sums on every rank -> x-pencils, --reduce sum, $np rank(s)" "$np" "$np" \
        n=8x6x5,first=-1 n=8x6x5,pencil=0 sum
done

# --layouts: the grid's cases and its kinds of layouts, on 1 and 2 of 2 ranks.
mpi 2 bench --quick --layouts --procs 1,2 --trials 1 --csv "$TMP/layouts.csv"
if [[ "$CLI_STATUS" != 0 ]]; then fail "bench --quick --layouts: exit $CLI_STATUS"
elif [[ $(grep -Ec "^  [12]D P=[12] K=" "$CLI_OUT") != 24 ]]; then fail "bench --layouts: not the grid's 24 case lines"
elif [[ $(grep -Ec "^  [23]D P=[12] (pencils|rep->shard|shard->rep|sum->shard) .* regret +[0-9.]+" "$CLI_OUT") != 16 ]]
then fail "bench --layouts: not 16 case lines of its kinds"
elif ! grep -Eq "^auto within 15% of the best algorithm in [0-9]+ of 40 cases" "$CLI_OUT"
then fail "bench --layouts: no summary of 40 cases"
elif python3 - "$TMP/layouts.csv" <<'PY'; then echo "ok: bench --layouts adds pencils, rep->shard, shard->rep and sum->shard to the grid"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cases = {}
for r in rows:
    cases.setdefault(r["case"], []).append(r)
kinds = {}
for rs in cases.values():
    kinds.setdefault(rs[0]["kind"], []).append(rs)
assert {k: len(v) for k, v in kinds.items()} == {"grid": 24, "pencils": 4, "rep->shard": 4,
                                                  "shard->rep": 4, "sum->shard": 4}, kinds.keys()
for kind, group in kinds.items():
    for rs in group:
        ok = {r["algorithm"] for r in rs if r["applicable"] == "1"}
        assert sum(r["best"] == "1" for r in rs) == 1 and sum(r["auto_choice"] == "1" for r in rs) == 1
        if kind == "sum->shard":
            assert ok == {"auto", "reduce-direct", "reduce-allgather"}, ok
            assert all(r["reduce"] == "sum" for r in rs)
        elif kind != "grid":
            assert {"auto", "direct-async", "direct", "alltoallv"} <= ok and "general" not in ok, (kind, ok)
            assert all(r["reduce"] == "" and r["ratio"] == "" for r in rs)
        else:
            assert "general" in ok and all(r["ratio"] != "" for r in rs), ok
PY
else fail "bench --layouts: its CSV is wrong (above)"; fi

# Wrong usage: exit 2 and one line saying what is wrong.
expect_mpi_usage() { # the message (grep -E), then redist's arguments on 1 rank
    local pat=$1
    shift
    mpi 1 "$@"
    if [[ "$CLI_STATUS" != 2 ]]; then fail "exit $CLI_STATUS (want 2): $*"
    elif ! grep -Eq -- "^redist: $pat" "$CLI_ERR"; then fail "stderr does not match /$pat/: $*"
    else echo "ok: usage error /$pat/: $*"; fi
}
expect_mpi_usage "bench: --to is required with --from \(see redist bench --help\)$" \
    bench --from n=12x10
expect_mpi_usage "bench: --from is required with --to" bench --to n=12x10
expect_mpi_usage "bench: --reduce is for a pair given by --from and --to" bench --reduce sum
expect_mpi_usage "bench: --quick chooses the built-in cases; not with --from and --to$" \
    bench --quick --from n=12x10 --to n=12x10
expect_mpi_usage "bench: --layouts chooses the built-in cases; not with --from and --to$" \
    bench --from n=12x10 --to n=12x10 --layouts
expect_mpi_usage "--reduce: expected sum, prod, max, min, land, lor, lxor, band, bor or bxor, got 'avg'$" \
    bench --from n=12x10 --to n=12x10 --reduce avg
expect_mpi_usage "--reduce band with --type double: MPI defines the logical and bitwise ops" \
    bench --from n=12x10 --to n=12x10 --reduce band
expect_mpi_usage "--from: boxes: cannot read 'none.txt': No such file or directory$" \
    bench --from n=12x10,boxes=none.txt --to n=12x10
expect_mpi_usage "--from: 2 boxes \(one per rank\) but the communicator has 1 process " \
    bench --from n=12x10,boxes=boxes-2.txt --to n=12x10
expect_mpi_usage "--to: n differs from --from's n$" bench --from n=12x10 --to n=10x12
expect_mpi_usage "bench: --from given twice" bench --from n=12x10 --to n=12x10 --from n=12x10
# A pair the library refuses (source boxes that overlap without being identical): exit 1,
# the reason named.
printf '0x0 8x10\n4x0 12x10\n' >overlap.txt
mpi 2 bench --from n=12x10,boxes=overlap.txt --to n=12x10 --trials 1
if [[ "$CLI_STATUS" == 1 ]] && grep -q "^redist: bench: n=12x10,boxes=overlap.txt -> n=12x10: .*not supported" "$CLI_ERR"
then echo "ok: bench of overlapping source boxes exits 1 saying why"
else fail "bench overlapping boxes: exit $CLI_STATUS"; fi

# demo's third part on 1 and 3 ranks: the three pairs, auto's choice as explain's for each, and
# the verdict counting every element of every part.
for np in 1 3; do
    r=1
    while (((r + 1) * (r + 1) <= np)); do r=$((r + 1)); done
    while ((np % r)); do r=$((r - 1)); done
    c=$((np / r))
    rm -f "$TMP"/demo-*.json
    i=0
    for pair in "n=32x24x16,pencil=0,procs=$np n=32x24x16,pencil=1" \
        "n=96x96,block=32,grid=${r}x$c,first=0x-1 n=96x96,block=32,grid=${c}x$r" \
        "n=96x96,grid=${np}x1,first=-1x0 n=96x96,block=32,grid=${c}x$r --reduce sum"; do
        # shellcheck disable=SC2086 # the pair is words
        set -- $pair
        run_cmd 30 "$REDIST" explain --from "$1" --to "$2" "${@:3}" --procs "$np" --json
        cp "$CLI_OUT" "$TMP/demo-$i.json"
        i=$((i + 1))
    done
    mpi "$np" demo
    if [[ "$CLI_STATUS" != 0 ]]; then fail "demo on $np ranks: exit $CLI_STATUS"; continue; fi
    if python3 - "$CLI_OUT" "$TMP" "$np" <<'PY'; then echo "ok: demo's third part on $np rank(s)"
import json, re, sys
text, tmp, np = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
lines = text.rstrip("\n").split("\n")
at = lines.index(f"3. Layouts beyond block-cyclic on {np} rank{'' if np == 1 else 's'} (doubles), "
                 "each planned with auto, run")
assert lines[at + 1] == "   once and every element checked, then timed (Tmed of 5 trials of 4 executes):"
what = ["x-pencils -> y-pencils (boxes), 32x24x16", "replicated along grid dim 1 -> 32x32 blocks, 96x96",
        "partial sums (MPI_SUM) -> 32x32 blocks, 96x96"]
for i, w in enumerate(what):
    want = json.load(open(f"{tmp}/demo-{i}.json"))["algorithm"]
    m = re.fullmatch(r"   (.{50}) auto -> (\S+) +[0-9.]+ [mun]?s", lines[at + 2 + i])
    assert m and m.group(1).rstrip() == w and m.group(2) == want, (lines[at + 2 + i], want)
assert lines[at + 5] == "" and len(lines) == at + 7, lines[at + 5:]
# every element checked: part 1's 48 per correct algorithm, part 2's 2000x2000 per timed row,
# part 3's 32x24x16 + 2 x 96x96
correct = re.search(r"^     correct: (.*?)\n     not applicable:", text, re.S | re.M).group(1)
n1 = len([w for w in re.split(r",\s*", correct.strip()) if w])
part2 = text[text.index("\n2. "):text.index("\n3. ")]
n2 = len([l for l in part2.split("\n") if re.match(r"^   [a-z][a-z0-9 >-]* +[0-9.]+ [mun]?s ", l)])
want = 48 * n1 + 2000 * 2000 * n2 + 32 * 24 * 16 + 2 * 96 * 96
assert lines[-1] == f"verified: all elements correct ({want} elements checked)", (lines[-1], want)
PY
    else fail "demo on $np ranks: the third part or the verdict is wrong (above)"; sed -n '/^3\./,$p' "$CLI_OUT"; fi
done
finish
