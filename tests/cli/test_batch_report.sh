#!/usr/bin/env bash
# redist run --batch K reports what one execute moves, all K arrays (docs/tool.md, `--batch`):
# the header names K arrays and their bytes in all and each, GB/s is the K arrays' bytes over
# Tmed (text and --quiet: gbps, with arrays=K and bytes=), as the traffic lines count all K
# (the most bytes a rank sends is K times a single array's). Once, the size and GB/s were
# one array's while the traffic lines counted all four, so the rate read 4x too low.
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${MPIEXEC:?}"
# shellcheck disable=SC2086 # MPIEXEC_PREFLAGS is a list of flags
mpi() { local n=$1; shift; run_cmd 120 "$MPIEXEC" -n "$n" $MPIEXEC_PREFLAGS "$REDIST" "$@" </dev/null; }
PAIR=(--from n=600x500,block=16x16 --to n=600x500,block=50x7,order=col --type int)
ARRAY=$((600 * 500 * 4))

# field KEY: the value of KEY= in the --quiet line in $CLI_OUT.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$CLI_OUT"; }

for np in 1 2 3; do
    for k in 1 4; do
        [[ $np == 1 && $k == 1 ]] && continue
        mpi "$np" run "${PAIR[@]}" --batch "$k" --repeat 3 --verify --quiet
        if [[ "$CLI_STATUS" != 0 || "$(field wrong)" != 0 ]]; then fail "$np ranks, --batch $k: exit $CLI_STATUS"; continue; fi
        sent[$k]=$(field max_bytes_per_rank)
        if python3 - "$(field gbps)" "$(field tmed)" "$((k * ARRAY))" <<'PY'
import sys
gbps, tmed, moved = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
want = moved / tmed / 1e9
sys.exit(0 if abs(gbps - want) <= 1e-4 + 1e-3 * want else 1)
PY
        then echo "ok: $np ranks, --batch $k: gbps is the $k arrays' bytes / tmed"
        else fail "$np ranks, --batch $k: gbps $(field gbps) is not $((k * ARRAY)) B / $(field tmed) s"; fi
        if [[ "$(field arrays) $(field bytes)" == "$k $((k * ARRAY))" ]]; then echo "ok: arrays=$k bytes=$((k * ARRAY))"
        else fail "$np ranks, --batch $k: arrays=$(field arrays) bytes=$(field bytes)"; fi
    done
    if [[ $np -gt 1 ]]; then
        if [[ -n "${sent[1]}" && "${sent[4]}" == $((4 * sent[1])) ]]; then
            echo "ok: $np ranks: the traffic of a batch of 4 is 4 arrays' (${sent[4]} B)"
        else fail "$np ranks: a rank sends ${sent[4]} B in a batch of 4, ${sent[1]} B alone"; fi
    fi
done

# The text report: the header and the rate name all the arrays.
mpi 3 run "${PAIR[@]}" --batch 4 --repeat 3 --verify
if [[ "$CLI_STATUS" != 0 ]]; then fail "3 ranks, --batch 4, text: exit $CLI_STATUS"
elif ! grep -q "^redist run: 3 MPI processes, 600x500 int, 4 arrays (4.80 MB in all, 1.20 MB each)$" "$CLI_OUT"
then fail "the header does not give the 4 arrays' size: $(head -n 1 "$CLI_OUT")"
elif ! python3 - "$CLI_OUT" "$((4 * ARRAY))" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"Tmed ([0-9.]+) (ns|us|ms|s) .* ([0-9.e+]+) GB/s \(at Tmed, all the arrays\)", text)
tmed = float(m.group(1)) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[m.group(2)]
want = int(sys.argv[2]) / tmed / 1e9
sys.exit(0 if abs(float(m.group(3)) - want) <= 0.02 * want else 1)  # Tmed shown to 3 digits
PY
then fail "the text's GB/s is not the 4 arrays' bytes / Tmed: $(grep 'GB/s' "$CLI_OUT")"
else echo "ok: the text report gives the 4 arrays' size and rate"; fi
finish
