# Predicted time of the all-to-all on 2 .. 1024 nodes of 64 ranks: flat (direct-async) against
# node-aware, for a few message sizes per rank pair, by the algorithms' own models on the
# default machine (`redist simulate --nodes`, docs/tool.md). From the source tree:
#
#   gnuplot -e "redist='build/redist'" docs/figures/nodes-simulated.gp
#
# writes docs/figures/nodes-simulated.svg (`redist` defaults to the one on PATH). The model is
# the default one only where no machine file or REDIST_MACHINE_* is in the way; --machine
# defaults (simulate's default) ignores them.
if (!exists("redist")) redist = 'redist'
sizes = "64 512 4096 1048576"
names = "'64 B' '512 B' '4 KiB' '1 MiB'"
# one run per size: its rows, 2 .. 1024 nodes
data(m) = '< '.redist.' simulate --nodes 2..1024 --ranks-per-node 64 --pattern alltoall --csv --bytes '.m

set terminal svg size 900,600 dynamic font 'sans,11'
set output 'docs/figures/nodes-simulated.svg'
set datafile separator ','
set logscale xy
set xtics (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
set format y '%.0e'
set grid
set key outside right
set title "redist simulate --nodes: all-to-all on nodes of 64 ranks, predicted (default machine)"
set xlabel 'nodes (64 ranks each)'
set ylabel 'predicted time per execute (s)'
# the CSV's columns: 2 nodes, 6 direct-async, 8 node-aware (line 1: the header)
plot for [i=1:words(sizes)] data(word(sizes, i)) every ::1 using 2:6 \
         with linespoints lc i pt 7 lw 2 title 'flat (direct-async), '.word(names, i), \
     for [i=1:words(sizes)] data(word(sizes, i)) every ::1 using 2:8 \
         with linespoints lc i pt 6 dt 2 lw 2 title 'node-aware, '.word(names, i)
