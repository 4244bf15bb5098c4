#!/usr/bin/env bash
# Copies what tests/gpu/run.sh runs out of a build tree into a small folder of the same layout
# (a few MB against the build tree's 40), for carrying to a GPU node:
#
#     bash tests/gpu/slim.sh [BUILD [DEST]]      # defaults: build .node/build
#
# then on the node: BUILD=.node/build bash tests/gpu/run.sh. With --python it also copies
# Debian's pytest and what it imports (pure Python) into .node/py: the GPU node's image has
# NumPy, mpi4py and CuPy but no pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
python=0
[[ ${1:-} == --python ]] && { python=1; shift; }
src=${1:-build} dest=${2:-.node/build}
rm -rf "$dest"
mkdir -p "$dest/tests/mpi"
cp -a "$src"/libredist.so* "$src/redist" "$src/bench_device" "$src/bench_threads" "$src/bench_2d" "$src/bench_runs" "$dest/"
# the GPU node's image has no OpenMP runtime; the rest comes with .node/mpi-runtime.tgz
cp -L "$(gcc -print-file-name=libgomp.so.1)" "$dest/"
for t in test_device test_device_onecopy test_random_layouts test_batch test_inter test_onecopy test_shared_alloc; do
    cp -a "$src/tests/mpi/$t" "$dest/tests/mpi/"
done
if [[ $python -eq 1 ]]; then
    rm -rf .node/py
    mkdir -p .node/py
    for m in _pytest pytest pluggy iniconfig packaging py py.py attr attrs; do
        cp -a "/usr/lib/python3/dist-packages/$m" .node/py/
    done
fi
du -sh "$dest" $( ((python)) && echo .node/py) | sed 's/^/slim: /'
