#!/usr/bin/env bash
# The slowest tests of one or more ctest runs: `slowest.sh N LABEL=LOG ...` reads each ctest
# log (the "k/n Test #i: name ... Passed 3.21 sec" lines that ctest prints) and prints the N
# slowest tests over all of them, each with its label (the build it ran in) and its time.
# make check prints them, so that a test that makes the suite slow is seen where it lands.
set -uo pipefail
count=${1:?usage: slowest.sh N LABEL=CTEST_LOG ...}
shift
for pair in "$@"; do
    label=${pair%%=*} log=${pair#*=}
    [[ -f $log ]] || continue
    # "  12/355 Test  #45: mpi_window_np2 ......   Passed   13.21 sec": the name follows
    # "#i:", the time precedes "sec"
    sed -nE 's/^ *[0-9]+\/[0-9]+ +Test +#[0-9]+: ([^ ]+) .* ([0-9]+\.[0-9]+) sec.*$/\2 \1/p' "$log" |
        awk -v label="$label" '{ printf "%8.2f s  %-12s %s\n", $1, label, $2 }'
done | sort -rn | head -n "$count"
