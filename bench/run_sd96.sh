#!/usr/bin/env bash
# [SD96] §5's experiment on this machine: an array of 4M ints moves from P ranks to P' other
# ranks (disjoint sets) in the paper's five cases, by the case's section algorithm (§4), by
# the enumerative `general` (§3) and by auto (our closed-form default), each through
# `redist run --verify --quiet` (every element checked). Prints Tmed per algorithm and
# general / section; writes bench/results/sd96.csv and .txt.
#
#   bench/run_sd96.sh            # P -> P' in 1 -> 1, 1 -> 2, 2 -> 3 (2, 3, 5 ranks)
#
# Environment: BUILD_DIR (default build), N (default 4194304), REPEAT (default 9x4).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
n=${N:-4194304}
repeat=${REPEAT:-9x4}
[ -x "$build/redist" ] || cmake --build "$build" --target redist_tool
# shellcheck disable=SC1091
source "$build/mpiexec.env"
results=$root/bench/results
mkdir -p "$results"
csv=$results/sd96.csv
echo "P,P2,case,algorithm,chosen,tmed_s,wrong" >"$csv"

# ranks a b: "a-b" (or "a" when a == b)
span() { if [ "$1" = "$2" ]; then echo "$1"; else echo "$1-$2"; fi; }

# run P P' CASE SRC_BLOCK DST_BLOCK ALGORITHM: prints and records one measurement
run() {
    local p=$1 q=$2 name=$3 bs=$4 bd=$5 algo=$6
    local from to out
    from="n=$n,block=$bs,ranks=$(span 0 $((p - 1)))"
    to="n=$n,block=$bd,ranks=$(span "$p" $((p + q - 1)))"
    # shellcheck disable=SC2086
    out=$("$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" $((p + q)) $MPIEXEC_PREFLAGS "$build/redist" run \
        --from "$from" --to "$to" --type int --algorithm "$algo" --repeat "$repeat" \
        --verify --quiet)
    local chosen tmed wrong
    chosen=$(sed -n 's/.*algorithm=\([^ ]*\).*/\1/p' <<<"$out")
    tmed=$(sed -n 's/.*tmed=\([^ ]*\).*/\1/p' <<<"$out")
    wrong=$(sed -n 's/.*wrong=\([^ ]*\).*/\1/p' <<<"$out")
    echo "$p,$q,$name,$algo,$chosen,$tmed,$wrong" >>"$csv"
    printf '%s\n' "$tmed"
}

{
    printf '%-8s %-18s %-16s %10s %10s %10s %14s %9s\n' "P->P'" case section \
        "section ms" "general ms" "auto ms" "auto chose" "gen/sect"
    for pq in "1 1" "1 2" "2 3"; do
        read -r p q <<<"$pq"
        bp=$(((n + p - 1) / p)) bq=$(((n + q - 1) / q))
        # name, source block, destination block, the section algorithm of the case
        for c in "Block->Block $bp $bq block-to-block" \
            "Block->Cyclic $bp 1 block-to-cyclic" \
            "Cyclic->Block 1 $bq cyclic-to-block" \
            "Cyc(TK')->Cyc(K') 32 4 tk-to-k" \
            "Cyc(K)->Cyc(TK) 4 32 k-to-tk"; do
            read -r name bs bd sect <<<"$c"
            ts=$(run "$p" "$q" "$name" "$bs" "$bd" "$sect")
            tg=$(run "$p" "$q" "$name" "$bs" "$bd" general)
            ta=$(run "$p" "$q" "$name" "$bs" "$bd" auto)
            chosen=$(tail -n 1 "$csv" | cut -d, -f5)
            awk -v pq="$p->$q" -v c="$name" -v s="$sect" -v ts="$ts" -v tg="$tg" -v ta="$ta" \
                -v ch="$chosen" 'BEGIN { printf "%-8s %-18s %-16s %10.2f %10.2f %10.2f %14s %8.2fx\n",
                    pq, c, s, 1e3 * ts, 1e3 * tg, 1e3 * ta, ch, tg / ts }'
        done
    done
    if grep -qv ',0$' <(tail -n +2 "$csv"); then
        echo "run_sd96.sh: some run had wrong elements (see $csv)" >&2
        exit 1
    fi
} | tee "$results/sd96.txt"
