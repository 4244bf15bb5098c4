#!/bin/bash
# The consumer check: build the programs of this directory against an INSTALLED redist,
# with pkg-config and with CMake's find_package, C and Fortran, and run each under mpiexec,
# checking its report (every element verified, none wrong).
#
#   bash tests/consumer/check.sh PREFIX
#   bash tests/consumer/check.sh --install BUILD_DIR PREFIX   (installs BUILD_DIR there first)
#
# PREFIX is where redist is installed (a scratch prefix of `cmake --install`, or /usr for
# the Debian package; with /usr nothing is added to the search paths: pkg-config and CMake
# must find it by themselves). Environment (all optional):
#   MPICC, MPIF90         MPI's compiler wrappers (mpicc, mpif90)
#   MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_PREFLAGS   the launcher (default: those of
#                         BUILD_DIR/mpiexec.env if BUILD_DIR is set, else mpiexec -n)
#   NP                    ranks (3)
#   FORTRAN               1: the Fortran module must be installed and is checked (default:
#                         checked if PREFIX/lib/pkgconfig/redist_fortran.pc exists)
#   WORK_DIR              scratch directory (default: a new temporary one, removed at exit)
#   CMAKE, PKG_CONFIG     the tools (cmake, pkg-config)
# Exit status 0 if every program was built and reported no wrong element.
set -euo pipefail

install_from=
if [[ ${1:-} == --install ]]; then
    install_from=${2:?usage: check.sh --install BUILD_DIR PREFIX}
    shift 2
fi
prefix=${1:?usage: check.sh [--install BUILD_DIR] PREFIX}
prefix=${prefix%/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MPICC=${MPICC:-mpicc}
MPIF90=${MPIF90:-mpif90}
CMAKE=${CMAKE:-cmake}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
NP=${NP:-3}
if [[ -z ${MPIEXEC:-} && -n ${BUILD_DIR:-} && -f $BUILD_DIR/mpiexec.env ]]; then
    # shellcheck disable=SC1091
    source "$BUILD_DIR/mpiexec.env"
fi
MPIEXEC=${MPIEXEC:-mpiexec}
MPIEXEC_NUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG:--n}
read -r -a preflags <<<"${MPIEXEC_PREFLAGS:-}"
# Open MPI as root (containers) and on more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_base_warn_component_unused=0

cleanup=()
if [[ -z ${WORK_DIR:-} ]]; then
    WORK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/redist-consumer.XXXXXX")
    cleanup+=("rm -rf '$WORK_DIR'")
else
    rm -rf "$WORK_DIR"
    mkdir -p "$WORK_DIR"
fi
run_cleanup() {
    local c
    for c in "${cleanup[@]}"; do eval "$c"; done
}
trap run_cleanup EXIT

fail() {
    echo "consumer check: FAILED: $*" >&2
    exit 1
}
step() { echo "consumer check: $*"; }

if [[ -n $install_from ]]; then
    # The prefix is emptied first: it must be new, empty, or an earlier install of redist.
    if [[ -d $prefix && -n $(ls -A "$prefix") && ! -f $prefix/lib/pkgconfig/redist.pc ]] ||
        [[ $prefix == /usr || $prefix == /usr/local ]]; then
        fail "--install into $prefix: use a new scratch prefix (it is emptied first)"
    fi
    rm -rf "$prefix"
    # The install rewrites the tree's record of the last install: keep the user's.
    # shellcheck source=tests/install/keep_install_record.sh
    source "$here/../install/keep_install_record.sh"
    keep_install_record "$install_from"
    cleanup=(restore_install_record "${cleanup[@]}")
    "$CMAKE" --install "$install_from" --prefix "$prefix" >"$WORK_DIR/install.log" 2>&1 ||
        fail "cmake --install $install_from --prefix $prefix:"$'\n'"$(cat "$WORK_DIR/install.log")"
    step "installed $install_from into $prefix"
fi
libdir=$prefix/lib
if [[ $prefix == /usr ]]; then
    unset PKG_CONFIG_PATH
    cmake_prefix=()
else
    export PKG_CONFIG_PATH=$libdir/pkgconfig
    cmake_prefix=("-DCMAKE_PREFIX_PATH=$prefix")
fi
if [[ -z ${FORTRAN:-} ]]; then
    FORTRAN=0
    [[ -f $libdir/pkgconfig/redist_fortran.pc ]] && FORTRAN=1
fi
for f in include/redist.h lib/libredist.so lib/libredist.a lib/pkgconfig/redist.pc \
    lib/cmake/redist/redistConfig.cmake; do
    [[ -e $prefix/$f ]] || fail "$prefix/$f is not installed"
done
if [[ $FORTRAN == 1 ]]; then
    for f in include/redist.mod include/redist/redist.mod lib/libredist_fortran.so \
        lib/pkgconfig/redist_fortran.pc; do
        [[ -e $prefix/$f ]] || fail "$prefix/$f is not installed"
    done
fi

# pkg-config must find this prefix's redist.pc, not another one.
pc_prefix=$("$PKG_CONFIG" --variable=prefix redist) || fail "pkg-config does not find redist"
[[ $pc_prefix == "$prefix" ]] || fail "pkg-config's redist has prefix $pc_prefix, not $prefix"

# run NAME PROGRAM PATTERN: run PROGRAM on NP ranks; its output must match PATTERN, and the
# program must load libredist from the prefix.
run() {
    local name=$1 prog=$2 pattern=$3 out lib
    if [[ $name != *static* ]]; then
        lib=$(ldd "$prog" | awk '$1 ~ /^libredist\.so/ {print $3}')
        # Compare real paths: with a merged /usr, /lib/libredist.so.0 is /usr/lib's.
        [[ -n $lib && $(readlink -f "$(dirname "$lib")") == "$(readlink -f "$libdir")" ]] ||
            fail "$name loads libredist from '$lib', not from $libdir"
    elif [[ $(ldd "$prog") == *libredist.so* ]]; then
        fail "$name should be linked statically, but loads libredist.so"
    fi
    out=$("$MPIEXEC" "$MPIEXEC_NUMPROC_FLAG" "$NP" "${preflags[@]}" "$prog" 2>&1) ||
        fail "$name exited with status $?:"$'\n'"$out"
    [[ $out =~ $pattern ]] || fail "$name printed:"$'\n'"$out"
    step "$name: ok: $(grep -m1 'elements checked' <<<"$out")"
}
c_ok="consumer \(C\): 3420 elements checked, 0 wrong, on $NP ranks"
f_ok="consumer \(Fortran\): 1189 elements checked, 0 wrong, on $NP ranks"

# 1. pkg-config and the MPI compiler wrappers.
read -r -a cflags <<<"$("$PKG_CONFIG" --cflags --libs redist)"
"$MPICC" -std=c11 -Wall -Wextra -Werror "$here/consumer.c" "${cflags[@]}" \
    -o "$WORK_DIR/consumer_pkgconfig" || fail "mpicc with pkg-config redist"
run "C, pkg-config" "$WORK_DIR/consumer_pkgconfig" "$c_ok"
if [[ $FORTRAN == 1 ]]; then
    read -r -a fflags <<<"$("$PKG_CONFIG" --cflags --libs redist_fortran)"
    "$MPIF90" "$here/consumer.f90" "${fflags[@]}" -o "$WORK_DIR/consumer_fortran_pkgconfig" ||
        fail "mpif90 with pkg-config redist_fortran"
    run "Fortran, pkg-config" "$WORK_DIR/consumer_fortran_pkgconfig" "$f_ok"
fi

# 2. CMake: find_package(redist) and the imported targets.
mpicc_path=$(command -v "$MPICC")
cmake_args=(-S "$here" -B "$WORK_DIR/cmake" -DCMAKE_BUILD_TYPE=Release
    "-DMPI_C_COMPILER=$mpicc_path" "${cmake_prefix[@]}")
if [[ $FORTRAN == 1 ]]; then
    cmake_args+=(-DWITH_FORTRAN=ON "-DMPI_Fortran_COMPILER=$(command -v "$MPIF90")")
fi
log=$WORK_DIR/cmake.log
"$CMAKE" "${cmake_args[@]}" >"$log" 2>&1 || fail "configuring the find_package project:"$'\n'"$(cat "$log")"
redist_dir=$(sed -n 's/^redist_DIR:PATH=//p' "$WORK_DIR/cmake/CMakeCache.txt")
[[ $redist_dir == "$libdir/cmake/redist" ]] ||
    fail "find_package(redist) found '$redist_dir', not $libdir/cmake/redist"
"$CMAKE" --build "$WORK_DIR/cmake" >"$log" 2>&1 || fail "building the find_package project:"$'\n'"$(cat "$log")"
run "C, find_package, redist::redist" "$WORK_DIR/cmake/consumer" "$c_ok"
run "C, find_package, redist::redist_static" "$WORK_DIR/cmake/consumer_static" "$c_ok"
if [[ $FORTRAN == 1 ]]; then
    run "Fortran, find_package, redist::redist_fortran" "$WORK_DIR/cmake/consumer_fortran" "$f_ok"
fi
step "passed against $prefix (C$([[ $FORTRAN == 1 ]] && echo " and Fortran"), pkg-config and find_package, $NP ranks)"
