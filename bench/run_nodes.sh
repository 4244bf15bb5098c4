#!/usr/bin/env bash
# node-aware against flat schedules on virtual nodes of this machine (docs/performance.md,
# "Many nodes"): `redist calibrate` on the virtual nodes into a machine file of their own
# (the network's remote_startup and remote_per_byte are the MPI transport between them),
# then bench_nodes with that file, so that the model's predictions are this emulation's.
# Results in bench/results/nodes-<recipe>-p<NP>/ (calibrate.txt, machine, bench.txt,
# bench.csv).
#
#   bench/run_nodes.sh [bench_nodes options, e.g. --case 2d --max 65536]
#
# Environment: BUILD_DIR (default build), NP (8), RANKS_PER_NODE (2; it must divide NP),
# RECIPE (Open MPI only):
#   hosts  (default) NP / RANKS_PER_NODE virtual hosts vn1, vn2, ...: mpiexec --host
#          vn1:K,vn2:K,... with bench/vnodes_rsh.sh as its rsh agent and --mca btl
#          tcp,vader,self: MPI_COMM_TYPE_SHARED groups each host's ranks, which talk through
#          shared memory, and ranks of different hosts talk through TCP;
#   tcp    REDIST_RANKS_PER_NODE=K (the library's virtual nodes; MPI sees one node) and
#          --mca btl tcp,self: every message through TCP, on a node as between nodes.
# QUICK=1 calibrates with --quick. On 2 cores, 8 ranks take about 2-4 minutes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
np=${NP:-8} k=${RANKS_PER_NODE:-2} recipe=${RECIPE:-hosts}
if [ "$k" -lt 1 ] || [ $((np % k)) -ne 0 ]; then
    echo "run_nodes.sh: RANKS_PER_NODE=$k must divide NP=$np" >&2
    exit 2
fi
for t in redist_tool bench_nodes; do
    exe=$build/$([ $t = redist_tool ] && echo redist || echo $t)
    [ -x "$exe" ] || cmake --build "$build" --target $t
done
# shellcheck disable=SC1091
source "$build/mpiexec.env"
if ! "$MPIEXEC" --version 2>&1 | grep -q 'Open MPI\|OpenRTE'; then
    echo "run_nodes.sh: the recipes need Open MPI's mpiexec (docs/performance.md, \"Many nodes\", says what MPICH does)" >&2
    exit 2
fi
# the launcher's flags less its btl choice
# shellcheck disable=SC2001 # a regular expression, not a fixed string
flags=$(sed -e 's/--mca btl [^ ]*//' <<<"$MPIEXEC_PREFLAGS")
env=()
case $recipe in
hosts)
    hosts=""
    for ((i = 1; i <= np / k; i++)); do hosts+="${hosts:+,}vn$i:$k"; done
    flags+=" --mca btl tcp,vader,self --mca plm_rsh_agent $root/bench/vnodes_rsh.sh --host $hosts"
    ;;
tcp)
    flags+=" --mca btl tcp,self -x REDIST_RANKS_PER_NODE"
    env=(REDIST_RANKS_PER_NODE="$k")
    ;;
*)
    echo "run_nodes.sh: RECIPE=$recipe: use hosts or tcp" >&2
    exit 2
    ;;
esac
out=$root/bench/results/nodes-$recipe-p$np
mkdir -p "$out"
rm -f "$out/machine"
export REDIST_MACHINE_FILE=$out/machine
quick=()
[ "${QUICK:-0}" = 1 ] && quick=(--quick)
echo "run_nodes.sh: $recipe, $np ranks as $((np / k)) nodes x $k; load $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
env "${env[@]}" "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$np" $flags -x REDIST_MACHINE_FILE \
    "$build/redist" calibrate "${quick[@]}" | tee "$out/calibrate.txt"
# shellcheck disable=SC2086
env "${env[@]}" "$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$np" $flags -x REDIST_MACHINE_FILE \
    "$build/bench_nodes" --csv "$out/bench.csv" "$@" | tee "$out/bench.txt"
echo "run_nodes.sh: load $(cut -d' ' -f1-3 /proc/loadavg) at the end; results in $out"
