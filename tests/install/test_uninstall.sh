#!/bin/bash
# ctest install_uninstall: install the build tree into a scratch prefix, check that the
# files are there, run the uninstall target's script on the manifest the install wrote, and
# check that the prefix holds no file any more (docs/install.md, "Uninstall").
#   bash tests/install/test_uninstall.sh BUILD_DIR WORK_DIR      (env: CMAKE, SOURCE_DIR)
set -euo pipefail
build=${1:?usage: test_uninstall.sh BUILD_DIR WORK_DIR}
work=${2:?usage: test_uninstall.sh BUILD_DIR WORK_DIR}
CMAKE=${CMAKE:-cmake}
source_dir=${SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
prefix=$work/prefix
fail() {
    echo "install_uninstall: FAILED: $*" >&2
    exit 1
}

rm -rf "$work"
mkdir -p "$work"
# The test's install and uninstall replace the tree's record of the last install: keep it.
# shellcheck source=tests/install/keep_install_record.sh
source "$source_dir/tests/install/keep_install_record.sh"
keep_install_record "$build"
trap restore_install_record EXIT
"$CMAKE" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    fail "cmake --install:"$'\n'"$(cat "$work/install.log")"
installed=$(find "$prefix" -type f -o -type l | wc -l)
for f in lib/libredist.so lib/libredist.a include/redist.h share/man/man3/redist.3.gz; do
    [[ -e $prefix/$f || -L $prefix/$f ]] || fail "$prefix/$f was not installed"
done
listed=$(grep -c "^$prefix/" "$build/install_manifest.txt") || true
[[ $listed -eq $installed ]] ||
    fail "the manifest lists $listed files under $prefix, the prefix holds $installed"

# What `make uninstall` runs (the uninstall target of CMakeLists.txt).
"$CMAKE" "-DMANIFEST=$build/install_manifest.txt" -P "$source_dir/cmake/uninstall.cmake" \
    >"$work/uninstall.log" 2>&1 || fail "uninstall:"$'\n'"$(cat "$work/uninstall.log")"
left=$(find "$prefix" \( -type f -o -type l \) -print)
[[ -z $left ]] || fail "files left after uninstall:"$'\n'"$left"
for d in lib/cmake/redist include/redist; do
    [[ ! -e $prefix/$d ]] || fail "$prefix/$d is left"
done
[[ ! -e $build/install_manifest.txt && ! -e $build/install_manifest_destdir.txt ]] ||
    fail "the install record is left"
# A second uninstall has nothing to remove, and says so.
if "$CMAKE" "-DMANIFEST=$build/install_manifest.txt" -P "$source_dir/cmake/uninstall.cmake" \
    >"$work/again.log" 2>&1; then
    fail "a second uninstall succeeded without a manifest"
fi
grep -q "no install manifest" "$work/again.log" || fail "second uninstall: $(cat "$work/again.log")"
# A staged install (DESTDIR): uninstall removes the files under that DESTDIR. The prefix is
# one that exists nowhere else, so that a mistake cannot touch this machine's files.
stage=$work/stage
fake=/opt/redist-uninstall-test-$$
[[ ! -e $fake ]] || fail "$fake exists"
DESTDIR=$stage "$CMAKE" --install "$build" --prefix "$fake" >"$work/install.log" 2>&1 ||
    fail "cmake --install with DESTDIR:"$'\n'"$(cat "$work/install.log")"
staged=$(find "$stage" -type f -o -type l | wc -l)
[[ $staged -eq $installed && -e $stage$fake/include/redist.h ]] ||
    fail "DESTDIR install: $staged files under $stage (expected $installed)"
env -u DESTDIR "$CMAKE" "-DMANIFEST=$build/install_manifest.txt" \
    -P "$source_dir/cmake/uninstall.cmake" >"$work/uninstall.log" 2>&1 ||
    fail "uninstall of the DESTDIR install:"$'\n'"$(cat "$work/uninstall.log")"
left=$(find "$stage" \( -type f -o -type l \) -print)
[[ -z $left ]] || fail "files left under DESTDIR after uninstall:"$'\n'"$left"
echo "install_uninstall: installed $installed files into $prefix, and with DESTDIR into" \
    "$stage$fake; uninstall removed them all"
rm -rf "$work"
