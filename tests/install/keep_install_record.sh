#!/bin/bash
# Sourced by the tests that install from a build tree (and by make deb): an install rewrites
# the tree's record of the last install, install_manifest.txt and
# install_manifest_destdir.txt, which `make uninstall` reads. keep_install_record BUILD_DIR
# saves them; restore_install_record (call it at exit) puts them back as they were.
keep_install_record() {
    _kir_build=$(cd "$1" && pwd)
    _kir_saved=$(mktemp -d "${TMPDIR:-/tmp}/redist-install-record.XXXXXX")
    local f
    for f in install_manifest.txt install_manifest_destdir.txt; do
        if [[ -f $_kir_build/$f ]]; then cp -p "$_kir_build/$f" "$_kir_saved/"; fi
    done
}
restore_install_record() {
    local f
    [[ -n ${_kir_saved:-} && -d $_kir_saved ]] || return 0
    for f in install_manifest.txt install_manifest_destdir.txt; do
        if [[ -f $_kir_saved/$f ]]; then
            cp -p "$_kir_saved/$f" "$_kir_build/$f"
        else
            rm -f "$_kir_build/$f"
        fi
    done
    rm -rf "$_kir_saved"
}
