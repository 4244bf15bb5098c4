#!/bin/bash
# ctest install_deb: the Debian package of `make deb`, built by cpack from the build tree
# into WORK_DIR (not the tree's own redist_*.deb), unpacked with dpkg-deb -x and checked:
# its files (libraries with the soname link, static library, header, Fortran module, .pc
# files, CMake package, tool, man pages), that nothing points into the build tree, and its
# control fields (dpkg-deb -I). No root, nothing installed on the machine.
#   bash tests/install/test_deb.sh BUILD_DIR WORK_DIR
# Environment: REDIST_MPI (the package is built against Open MPI only: other MPIs skip,
# exit 77), CPACK, REDIST_VERSION, REDIST_FORTRAN and REDIST_SCALAPACK (1 if built).
set -euo pipefail
build=$(cd "${1:?usage: test_deb.sh BUILD_DIR WORK_DIR}" && pwd)
work=${2:?usage: test_deb.sh BUILD_DIR WORK_DIR}
CPACK=${CPACK:-cpack}
version=${REDIST_VERSION:?}
fail() {
    echo "install_deb: FAILED: $*" >&2
    exit 1
}
if [[ ${REDIST_MPI:-} != openmpi ]]; then
    echo "install_deb: SKIPPED: the Debian package is built against Open MPI only, and this" \
        "tree uses ${REDIST_MPI:-an unknown MPI} (make deb needs MPI=openmpi)"
    exit 77
fi

rm -rf "$work"
mkdir -p "$work"
# cpack's install rewrites the tree's record of the last install: keep the user's.
# shellcheck source=tests/install/keep_install_record.sh
source "$(dirname "${BASH_SOURCE[0]}")/keep_install_record.sh"
keep_install_record "$build"
trap restore_install_record EXIT
start=$(date +%s)
(cd "$build" && "$CPACK" -G DEB -B "$work") >"$work/cpack.log" 2>&1 ||
    fail "cpack -G DEB:"$'\n'"$(cat "$work/cpack.log")"
arch=$(dpkg --print-architecture)
deb=$work/redist_${version}_${arch}.deb
[[ -f $deb ]] || fail "cpack did not write $deb:"$'\n'"$(ls "$work")"
echo "install_deb: built $(basename "$deb") in $(($(date +%s) - start)) s"

# Control fields.
info=$(dpkg-deb -I "$deb")
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == redist ]] || fail "Package: $(field Package)"
[[ $(field Version) == "$version" ]] || fail "Version: $(field Version), not $version"
[[ $(field Architecture) == "$arch" ]] || fail "Architecture: $(field Architecture)"
[[ -n $(field Maintainer) && -n $(field Description) ]] || fail "no Maintainer or Description"
depends=$(field Depends)
need_deps=(libc6 libopenmpi3 libopenmpi-dev openmpi-bin gcc)
[[ ${REDIST_FORTRAN:-0} == 1 ]] && need_deps+=(gfortran)
[[ ${REDIST_SCALAPACK:-0} == 1 ]] && need_deps+=(libscalapack-openmpi-dev)
for d in "${need_deps[@]}"; do
    grep -Eq "(^|, )$d( |,|$)" <<<"$depends" || fail "Depends lacks $d: $depends"
done
# Every dependency must be a package this machine's apt knows (not a typo, not a file name):
# apt-cache policy prints a "name:" line for each known one.
if command -v apt-cache >/dev/null; then
    mapfile -t names < <(tr ',|' '\n' <<<"$depends" | sed 's/(.*)//; s/ //g' | grep . | sort -u)
    mapfile -t known < <(apt-cache policy "${names[@]}" 2>/dev/null | sed -n 's/^\([a-z0-9][^ ]*\):$/\1/p' |
        sed 's/:[a-z0-9]*$//' | sort -u)
    if [[ ${#known[@]} -gt 0 ]]; then # apt has package lists
        known_list=$(printf '%s\n' "${known[@]}") # a here-string: `printf | grep -q` and pipefail
        for d in "${names[@]}"; do
            grep -qx "$d" <<<"$known_list" || fail "Depends names $d, which apt does not know"
        done
    else
        echo "install_deb: apt has no package lists; the Depends names are not checked against them"
    fi
fi

# Files.
root=$work/root
dpkg-deb -x "$deb" "$root"
listing=$(dpkg-deb -c "$deb")
outside=$(awk '{print $6}' <<<"$listing" | grep -Ev '^\./$|^\./usr(/|$)' || true)
[[ -z $outside ]] || fail "files outside /usr:"$'\n'"$outside"
want=(usr/lib/libredist.so usr/lib/libredist.so.0 "usr/lib/libredist.so.$version" usr/lib/libredist.a
    usr/include/redist.h usr/lib/pkgconfig/redist.pc usr/lib/cmake/redist/redistConfig.cmake
    usr/lib/cmake/redist/redistConfigVersion.cmake usr/lib/cmake/redist/redistTargets.cmake
    usr/bin/redist usr/share/man/man1/redist.1.gz usr/share/man/man3/redist.3.gz)
if [[ ${REDIST_FORTRAN:-0} == 1 ]]; then
    want+=(usr/include/redist.mod usr/include/redist/redist.mod usr/lib/libredist_fortran.so
        usr/lib/libredist_fortran.so.0
        usr/lib/pkgconfig/redist_fortran.pc)
fi
if [[ ${REDIST_SCALAPACK:-0} == 1 ]]; then
    want+=(usr/lib/libredist_scalapack.so usr/lib/libredist_scalapack.so.0
        usr/lib/pkgconfig/redist_scalapack.pc)
fi
for f in "${want[@]}"; do
    [[ -e $root/$f || -L $root/$f ]] || fail "the package lacks /$f"
done
# The soname and its links: libredist.so -> libredist.so.0 -> libredist.so.<version>.
[[ $(readlink "$root/usr/lib/libredist.so") == libredist.so.0 ]] ||
    fail "libredist.so -> $(readlink "$root/usr/lib/libredist.so"), not libredist.so.0"
[[ $(readlink "$root/usr/lib/libredist.so.0") == "libredist.so.$version" ]] ||
    fail "libredist.so.0 -> $(readlink "$root/usr/lib/libredist.so.0")"
soname=$(objdump -p "$root/usr/lib/libredist.so.$version" | awk '$1 == "SONAME" {print $2}')
[[ $soname == libredist.so.0 ]] || fail "SONAME of libredist.so.$version is '$soname'"
# Executables and libraries carry no path into the build tree (RPATH/RUNPATH).
while IFS= read -r f; do
    paths=$(objdump -p "$f" 2>/dev/null | grep -E 'R(UN)?PATH' || true)
    [[ $paths != *"$build"* ]] || fail "/${f#"$root"/} has an rpath into the build tree: $paths"
done < <(find "$root/usr/bin" "$root/usr/lib" -maxdepth 1 -type f)
# Nor do the text files (.pc, CMake package).
if grep -rl "$build" "$root/usr/lib/pkgconfig" "$root/usr/lib/cmake" >/dev/null; then
    fail "files that name the build tree: $(grep -rl "$build" "$root/usr/lib/pkgconfig" "$root/usr/lib/cmake")"
fi
grep -qx 'prefix=/usr' "$root/usr/lib/pkgconfig/redist.pc" ||
    fail "redist.pc: $(grep prefix= "$root/usr/lib/pkgconfig/redist.pc")"
if grep -q rpath "$root"/usr/lib/pkgconfig/*.pc; then
    fail "a .pc file in /usr adds an rpath: $(grep rpath "$root"/usr/lib/pkgconfig/*.pc)"
fi
# The tool runs and is this version.
tool_version=$("$root/usr/bin/redist" --version) || fail "/usr/bin/redist --version failed"
[[ $tool_version == *"$version"* ]] || fail "redist --version: $tool_version"
# The man pages are the sources', compressed (section 1 and 3).
for s in 1 3; do
    gzip -dc "$root/usr/share/man/man$s/redist.$s.gz" |
        cmp -s - "$(dirname "${BASH_SOURCE[0]}")/../../man/redist.$s" ||
        fail "/usr/share/man/man$s/redist.$s.gz is not man/redist.$s compressed"
done
n=$(grep -c . <<<"$listing")
echo "install_deb: $(basename "$deb"): $n entries, Depends: $depends"
sed -n 's/^ *\(Installed-Size\|Section\):/  &/p' <<<"$info"
rm -rf "$work"
