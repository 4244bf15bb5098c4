#!/usr/bin/env bash
# Make sure everything redist needs to build, test, benchmark and plot is installed.
# On Debian/Ubuntu as root: installs what is missing with one apt-get call.
# Otherwise: prints the command to run and exits 1. Fast no-op when nothing is missing.
# Set REDIST_SKIP_DEPS=1 to skip the check entirely.
set -euo pipefail

if [[ "${REDIST_SKIP_DEPS:-0}" == 1 ]]; then
    exit 0
fi

missing=()   # Debian packages to install
need() {     # need PACKAGE: record PACKAGE as missing (once)
    local p
    for p in "${missing[@]+"${missing[@]}"}"; do [[ "$p" == "$1" ]] && return 0; done
    missing+=("$1")
}
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { # installed Debian package (false where dpkg is not available)
    have_cmd dpkg-query &&
        dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
have_lib() { # have_lib NAME...: a linkable lib<NAME>.so in a standard directory
    local n d
    for n in "$@"; do
        for d in /usr/lib /usr/lib64 /usr/local/lib /usr/lib/*-linux-gnu; do
            [[ -e "$d/lib$n.so" ]] && return 0
        done
    done
    return 1
}

have_cmd gcc || need gcc
[[ -e /usr/include/stdio.h ]] || have_pkg libc6-dev || need libc6-dev
have_cmd make || need make
have_cmd cmake || need cmake
have_cmd pkg-config || need pkg-config
have_cmd mpicc || need libopenmpi-dev
have_cmd gfortran || need gfortran # the Fortran module and the ScaLAPACK relink test
have_cmd mpirun || have_cmd mpiexec || need openmpi-bin
have_lib scalapack-openmpi scalapack || have_pkg libscalapack-openmpi-dev ||
    need libscalapack-openmpi-dev
# MPICH beside Open MPI, for `make check MPI=mpich` (the defaults mpicc/mpiexec stay Open MPI's)
have_lib mpich || need libmpich-dev
{ have_cmd mpicc.mpich && have_cmd mpiexec.mpich; } || need mpich
have_lib scalapack-mpich || have_pkg libscalapack-mpich-dev || need libscalapack-mpich-dev
[[ -e /usr/include/fftw3-mpi.h ]] || need libfftw3-mpi-dev # a peer in bench_transpose
have_lib fftw3 || need libfftw3-dev
have_cmd gnuplot || need gnuplot-nox
have_cmd python3 || need python3
# the Python package (python/; make python-check): Debian's interpreter with its modules
for p in python3-mpi4py python3-numpy python3-pytest python3-cffi python3-venv python3-pip \
    python3-setuptools; do
    have_pkg "$p" || need "$p"
done
have_cmd valgrind || need valgrind # make valgrind
# make tsan: clang, with LLVM's OpenMP runtime and its Archer tool (libomp-dev)
have_cmd clang || need clang
have_pkg libomp-dev || need libomp-dev
# make deb / make deb-check and the install tests: cpack's dependency scan (file,
# dpkg-shlibdeps), objdump, and groff and man for the man pages
have_cmd file || need file
have_cmd dpkg-shlibdeps || need dpkg-dev
have_cmd objdump || need binutils
have_cmd groff || need groff-base
have_cmd man || need man-db

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
echo "install-deps: missing packages: ${missing[*]}" >&2

if [[ "$(id -u)" -ne 0 ]]; then
    echo "install-deps: not root; install them with:" >&2
    echo "    sudo sh -c 'DEBIAN_FRONTEND=noninteractive $cmd'" >&2
    echo "install-deps: (or set REDIST_SKIP_DEPS=1 to skip this check)" >&2
    exit 1
fi
if ! have_cmd apt-get; then
    echo "install-deps: apt-get not found; install the equivalents of: ${missing[*]}" >&2
    exit 1
fi

echo "install-deps: $cmd" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: done" >&2
