#!/usr/bin/env bash
# Nodes as explain and plans see them (docs/tool.md, "redist explain", --nodes):
# - explain --ranks-per-node K (or --nodes N) describes the ranks on nodes of K consecutive
#   ranks, as a plan under REDIST_RANKS_PER_NODE=K does: for several pairs (1-D cyclic(1) ->
#   cyclic(3), a 2-D grid change, boxes, an uneven last node), the most messages and bytes a
#   rank sends off node that explain --json reports equal what `redist run` reports from the
#   plans' stats on virtual nodes, for a flat algorithm (direct-async) and for node-aware
#   (its pair messages); each run checks every element;
# - on one node explain says so and node-aware does not apply; on several it applies;
# - --nodes x --ranks-per-node sets --procs, and a --procs that disagrees is a usage error,
#   as are a zero or malformed count and negative network seconds;
# - --remote-startup changes the prediction of a flat algorithm with off-node messages.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$CLI_OUT" "$CLI_ERR"' EXIT
cd "$TMP" || exit 1

# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
mpi_nodes() { # ranks per node, ranks, then redist's arguments
    local k=$1 np=$2
    shift 2
    run_cmd 120 env REDIST_RANKS_PER_NODE="$k" "$MPIEXEC" -n "$np" $MPIEXEC_PREFLAGS "$REDIST" "$@" </dev/null
}

# agree NAME K NP FROM TO: explain's off-node figures against run's, flat and node-aware.
agree() {
    local name=$1 k=$2 np=$3 from=$4 to=$5
    run_cmd 60 "$REDIST" explain --from "$from" --to "$to" --procs "$np" --ranks-per-node "$k" --json
    if [[ "$CLI_STATUS" != 0 ]]; then fail "$name: explain exit $CLI_STATUS"; return; fi
    cp "$CLI_OUT" "$TMP/explain.json"
    local alg
    for alg in direct-async node-aware; do
        mpi_nodes "$k" "$np" run --from "$from" --to "$to" --algorithm "$alg" --verify --repeat 1x2
        if [[ "$CLI_STATUS" != 0 ]]; then fail "$name/$alg: run exit $CLI_STATUS"; continue; fi
        if python3 - "$TMP/explain.json" "$CLI_OUT" "$alg" "$k" "$np" <<'PY'; then echo "ok: $name/$alg"
import json, re, sys
ex, out, alg, k, np = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
n = ex["nodes"]
nodes = (np + k - 1) // k
assert n["nodes"] == nodes and n["ranks_per_node"] == k, n
assert re.search(r"verified\s+all \d+ elements correct", out), out
m = re.search(r"nodes\s+(\d+) nodes of up to (\d+) ranks; at most (\d+) messages? and ([\d.]+ [kMG]?B) sent off node", out)
assert m, out
assert int(m.group(1)) == nodes and int(m.group(2)) == k, m.groups()
units = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
val, unit = m.group(4).split()
run_bytes = float(val) * units[unit]
want_msgs, want_bytes = ((n["max_messages_sent_off_node"], n["max_bytes_sent_off_node"])
                         if alg == "direct-async" else
                         (n["node_aware_pair_messages"], n["node_aware_pair_bytes"]))
assert int(m.group(3)) == want_msgs, (m.groups(), want_msgs)
# the most messages a rank sends in all (explain's row of the algorithm, run's plan line)
row = [a for a in ex["algorithms"] if a["name"] == alg][0]
p = re.search(r"at most (\d+) messages? and ([\d.]+ [kMG]?B) sent per rank", out)
assert p and int(p.group(1)) == row["max_messages_per_rank"], (p and p.groups(), row)
# run prints 3 significant digits
assert abs(run_bytes - want_bytes) <= 0.006 * max(want_bytes, 1) + 1, (run_bytes, want_bytes)
PY
        else
            fail "$name/$alg: explain and run disagree"
        fi
    done
}

agree "1-D cyclic(1)->cyclic(3), 4 nodes x 2" 2 8 n=6000,block=1 n=6000,block=3
agree "2-D grid change, 3 nodes x 3, last node 2" 3 8 n=300x200,block=7x5,grid=4x2 n=300x200,block=3x11,grid=2x4
agree "2-D grid change, 2 nodes x 2" 2 4 n=120x90,block=4x4,grid=4x1 n=120x90,block=5x3,grid=1x4
agree "x-pencils -> y-pencils, 3 nodes of 1" 1 3 n=12x10x8,pencil=0 n=12x10x8,pencil=1
agree "one rank -> 5 ranks, nodes of 2" 2 5 n=1000,block=1000,procs=1 n=1000,block=7,procs=5

# one node: said, and node-aware does not apply; several: it does
run_cmd 30 "$REDIST" explain --from n=64,block=1 --to n=64,block=3 --procs 4 --json
python3 - "$CLI_OUT" <<'PY' && echo "ok: one node" || fail "one node"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["nodes"]["nodes"] == 1, d["nodes"]
row = [a for a in d["algorithms"] if a["name"] == "node-aware"][0]
assert not row["applicable"] and "several nodes" in row["why_not"], row
PY
run_cmd 30 "$REDIST" explain --from n=64,block=1 --to n=64,block=3 --nodes 2 --ranks-per-node 2 --json
python3 - "$CLI_OUT" <<'PY' && echo "ok: --nodes x --ranks-per-node" || fail "--nodes x --ranks-per-node"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["procs"] == 4 and d["nodes"]["nodes"] == 2, (d["procs"], d["nodes"])
assert [a for a in d["algorithms"] if a["name"] == "node-aware"][0]["applicable"]
PY
run_cmd 30 "$REDIST" explain --from n=64,block=1 --to n=64,block=3 --procs 6 --nodes 3
python3 - "$CLI_OUT" <<'PY' && echo "ok: --nodes alone" || fail "--nodes alone"
import sys
assert "3 nodes of up to 2 ranks" in open(sys.argv[1]).read()
PY

# the network's start-up counts for off-node messages
pred() { # remote start-up -> direct-async's predicted seconds
    run_cmd 30 "$REDIST" explain --from n=4096,block=1 --to n=4096,block=3 --nodes 4 \
        --ranks-per-node 2 --algorithm direct-async --remote-startup "$1" --json
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["predicted_seconds"])' "$CLI_OUT"
}
a=$(pred 0) b=$(pred 1e-3)
python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); assert b > a + 1e-3, (a, b)" "$a" "$b" \
    && echo "ok: --remote-startup" || fail "--remote-startup: $a -> $b"

expect_usage "is not --nodes 2 x --ranks-per-node 2" "$REDIST" explain --from n=64,block=1 --to n=64,block=3 --procs 5 --nodes 2 --ranks-per-node 2
expect_usage "--nodes: expected a positive integer" "$REDIST" explain --from n=64,block=1 --to n=64,block=3 --nodes 0
expect_usage "--ranks-per-node: expected a positive integer" "$REDIST" explain --from n=64,block=1 --to n=64,block=3 --ranks-per-node two
expect_usage "--remote-startup: expected seconds" "$REDIST" explain --from n=64,block=1 --to n=64,block=3 --nodes 2 --remote-startup -1
expect_usage "5 ranks do not make 4 nodes" "$REDIST" explain --from n=64,block=1 --to n=64,block=3 --procs 5 --nodes 4
finish
