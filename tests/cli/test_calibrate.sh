#!/usr/bin/env bash
# redist calibrate and redist bench (docs/tool.md). calibrate --quick under mpirun writes a
# machine file with every parameter as a number, which explain then names as its source (and
# marks auto's choice in its table);
# --no-write leaves no file; REDIST_RANKS_PER_NODE's virtual nodes are nodes to calibrate
# too (the network between them measured, the output saying they are virtual); bench --quick
# checks every element of every algorithm, prints a line per case and the summary, and
# writes a CSV whose header is docs/tool.md's column list, whose rows have regrets >= the
# chosen-best relation and, for algorithms that do not apply, empty figures (once, they were
# predicted_s=0, measured_s=0), and which bench/model_summary.py reads; bad options exit 2
# naming the option.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
mpi() { local n=$1; shift; run_cmd 240 "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "$REDIST" "$@"; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT

mpi 2 calibrate --quick --output "$TMP/machine"
if [[ "$CLI_STATUS" != 0 ]]; then fail "calibrate --quick: exit $CLI_STATUS"
elif ! grep -Eq "within a node +T_d = .*R\^2 = " "$CLI_OUT"; then fail "calibrate: no start-up fit line"
else echo "ok: calibrate prints its fits"; fi
for key in startup per_message per_byte copy_per_byte copy_per_run per_piece; do
    if grep -Eq "^$key +=  *[0-9.eE+-]+ +#" "$TMP/machine" 2>/dev/null &&
        python3 -c "import sys; v=float(sys.argv[1]); sys.exit(0 if 0 <= v < 1 else 1)" \
            "$(awk -v k="$key" '$1 == k {print $3}' "$TMP/machine")"
    then echo "ok: machine file has $key"
    else fail "machine file: no number for $key"; fi
done

REDIST_MACHINE_FILE="$TMP/machine" run_cmd 30 "$REDIST" explain --from n=1M,block=2,procs=4 --to n=1M,block=8
if [[ "$CLI_STATUS" == 0 ]] && grep -Fq "parameters from $TMP/machine" "$CLI_OUT"
then echo "ok: explain reads the calibrated file"
else fail "explain does not name the calibrated file (exit $CLI_STATUS)"; fi

# explain marks the row of the algorithm auto chose, once; a forced algorithm marks none.
chosen=$(sed -n 's/^  auto -> \([a-z-]*\).*/\1/p' "$CLI_OUT")
marked=$(grep -c -- '<- chosen$' "$CLI_OUT")
if [[ -n "$chosen" && "$marked" == 1 ]] && grep -Eq "^  $chosen( \(dt\))? .*<- chosen$" "$CLI_OUT"
then echo "ok: explain marks $chosen, auto's choice"
else fail "explain: chosen '$chosen' marked $marked times"; fi
run_cmd 30 "$REDIST" explain --from n=1M,block=2,procs=4 --to n=1M,block=8 --algorithm direct
if [[ "$CLI_STATUS" == 0 ]] && ! grep -q -- '<- chosen' "$CLI_OUT"; then echo "ok: a forced algorithm marks no row"
else fail "explain --algorithm direct: exit $CLI_STATUS or a row marked"; fi

# Virtual nodes (REDIST_RANKS_PER_NODE, as plans find nodes): 2 nodes of 1 rank, the network
# measured between them, and said to be virtual on the first line and in the file; a
# malformed value is ignored, as plans ignore it, and said so.
REDIST_RANKS_PER_NODE=1 mpi 2 calibrate --quick --output "$TMP/virtual"
if [[ "$CLI_STATUS" == 0 ]] &&
    grep -q "^redist calibrate: 2 ranks on 2 node(s) (virtual nodes: REDIST_RANKS_PER_NODE=1 splits the ranks of one machine;" "$CLI_OUT" &&
    grep -Eq "^  between nodes +T_d = " "$CLI_OUT" && grep -q "^# 2 ranks on 2 node(s) (virtual nodes" "$TMP/virtual" &&
    grep -Eq "^remote_startup +=  *[0-9.eE+-]+ +#" "$TMP/virtual"
then echo "ok: calibrate measures the network between REDIST_RANKS_PER_NODE's virtual nodes and says so"
else fail "calibrate on virtual nodes: exit $CLI_STATUS or no 'between nodes' fit or no 'virtual' line"; fi
REDIST_RANKS_PER_NODE=two mpi 2 calibrate --quick --no-write
if [[ "$CLI_STATUS" == 0 ]] && grep -q "^redist calibrate: 2 ranks on 1 node(s) (quick sweeps)" "$CLI_OUT" &&
    grep -q "REDIST_RANKS_PER_NODE is not a positive whole number: ignored" "$CLI_OUT"
then echo "ok: a malformed REDIST_RANKS_PER_NODE is ignored, saying so"
else fail "calibrate with REDIST_RANKS_PER_NODE=two: exit $CLI_STATUS or not said"; fi

mpi 2 calibrate --quick --no-write --output "$TMP/none"
if [[ "$CLI_STATUS" == 0 && ! -e "$TMP/none" ]]; then echo "ok: --no-write writes nothing"
else fail "--no-write: exit $CLI_STATUS or a file was written"; fi

# --plots in a directory whose path has a quote and runs past 1200 characters.
PLOTS="$TMP/it's a dir/$(python3 -c "print('/'.join(['d' * 250] * 5))")/plots"
mkdir -p "$(dirname "$PLOTS")"
mpi 3 bench --quick --procs 2,3 --trials 1 --csv "$TMP/b.csv" --plots "$PLOTS"
if [[ "$CLI_STATUS" != 0 ]]; then fail "bench --quick: exit $CLI_STATUS"
elif [[ $(grep -Ec "^  [12]D P=[23] .* regret +[0-9.]+" "$CLI_OUT") != 24 ]]; then fail "bench: not 24 case lines"
elif ! grep -Eq "^auto within 15% of the best algorithm in [0-9]+ of 24 cases" "$CLI_OUT"
then fail "bench: no summary"
else echo "ok: bench runs 24 cases and sums them up"; fi
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if python3 - "$TMP/b.csv" "$SRC/docs/tool.md" <<'PY'
import csv, re, sys
doc = open(sys.argv[2]).read()
listed = re.search(r"`--csv FILE`: one row per case and algorithm: `([^`]*)`", doc).group(1)
header = open(sys.argv[1]).readline().strip().split(",")
assert header == [c.strip() for c in listed.split(",")], (header, listed)
rows = list(csv.DictReader(open(sys.argv[1])))
# An algorithm that does not apply was neither planned nor timed: no figures, not best, not chosen.
na = [r for r in rows if r["applicable"] == "0"]
assert na and all(r["transport"] == r["predicted_s"] == r["measured_s"] == "" and
                  r["best"] == r["auto_choice"] == "0" for r in na), na[:1]
assert all(r["applicable"] in ("0", "1") for r in rows)
cases = {}
for r in rows:
    cases.setdefault(r["case"], []).append(r)
assert len(cases) == 24, len(cases)
for c, rs in cases.items():
    ok = [r for r in rs if r["applicable"] == "1"]
    names = {r["algorithm"] for r in ok}
    assert {"auto", "direct-async", "direct", "general"} <= names, names
    best = [r for r in ok if r["best"] == "1"]
    assert len(best) == 1, c
    t_best = float(best[0]["measured_s"])
    assert all(float(r["measured_s"]) >= t_best for r in ok if r["algorithm"] != "auto"), c
    auto = [r for r in ok if r["algorithm"] == "auto"][0]
    assert abs(float(auto["regret"]) - float(auto["measured_s"]) / t_best) < 1e-3 * float(auto["regret"]), c
    assert sum(r["auto_choice"] == "1" for r in ok) == 1, c
    assert all(float(r["predicted_s"]) > 0 for r in ok), c
PY
then echo "ok: the CSV's columns are the documented ones; best, regret and choice agree with its times"
else fail "bench CSV inconsistent"; fi
if python3 "$SRC/bench/model_summary.py" "$TMP/b.csv" >"$TMP/summary.md" && grep -q "^| case | regret |" "$TMP/summary.md"
then echo "ok: bench/model_summary.py reads the CSV"
else fail "bench/model_summary.py fails on the CSV"; fi
if [[ -s "$PLOTS/bench.gp" && -s "$PLOTS/bench.dat" ]]; then echo "ok: plot data and script written"
else fail "bench --plots wrote no script"; fi
if ! command -v gnuplot >/dev/null; then echo "skip: no gnuplot, no SVG plots to check"
elif [[ -s "$PLOTS/predicted_vs_measured.svg" ]] && grep -q "and the SVG plots$" "$CLI_OUT"
then echo "ok: gnuplot drew the plots there"
else fail "bench --plots: no SVG plots in a directory with a quote in its path"; fi

mpi 2 calibrate --bogus
if [[ "$CLI_STATUS" == 2 ]] && grep -q "unknown option '--bogus'" "$CLI_ERR"; then echo "ok: calibrate --bogus exits 2"
else fail "calibrate --bogus: exit $CLI_STATUS"; fi
mpi 2 bench --procs 4
if [[ "$CLI_STATUS" == 2 ]] && grep -q "only 2 ranks were started" "$CLI_ERR"; then echo "ok: bench --procs beyond the launch exits 2"
else fail "bench --procs 4 on 2 ranks: exit $CLI_STATUS"; fi
mpi 2 bench --trials 0
if [[ "$CLI_STATUS" == 2 ]] && grep -q "trials" "$CLI_ERR"; then echo "ok: bench --trials 0 exits 2"
else fail "bench --trials 0: exit $CLI_STATUS"; fi
finish
