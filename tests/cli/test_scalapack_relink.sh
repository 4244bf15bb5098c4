#!/usr/bin/env bash
# An unchanged ScaLAPACK program (tests/fortran/relink.f90: PDGEMR2D, PDTRMR2D, PZGEMR2D and
# PIGEMR2D between two grids of different shapes and orders, sub-matrices, padded LLD) gives
# the same output linked with libredist_scalapack before ScaLAPACK as with ScaLAPACK alone:
# every process's checksum of its whole local B, padding included, for every call. The
# relinked program must really call redist: its pdgemr2d_ binds to libredist_scalapack.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${BUILD_DIR:?}" "${MPIEXEC:?}"
dir="$BUILD_DIR/tests/fortran"
work=$(mktemp -d)
trap 'rm -rf "$work" "$CLI_OUT" "$CLI_ERR"' EXIT

for np in 1 3 4; do
    for variant in scalapack redist; do
        # shellcheck disable=SC2086
        run_cmd 120 "$MPIEXEC" $MPIEXEC_PREFLAGS -n "$np" "$dir/relink_$variant"
        if [[ "$CLI_STATUS" != 0 ]]; then fail "relink_$variant on $np: exit $CLI_STATUS"; fi
        sort "$CLI_OUT" >"$work/$variant.$np"
    done
    lines=$(wc -l <"$work/redist.$np")
    if [[ "$lines" != $((24 * np)) ]]; then
        fail "$np processes: $lines lines of output, want $((24 * np))"
    elif ! cmp -s "$work/scalapack.$np" "$work/redist.$np"; then
        diff "$work/scalapack.$np" "$work/redist.$np" | head -5
        fail "$np processes: relinked output differs from ScaLAPACK's"
    else
        echo "ok: $np processes, $lines checksums equal to ScaLAPACK's"
    fi
done

# The relinked binary's pdgemr2d_ comes from libredist_scalapack (the dynamic linker's
# bindings), the other's from ScaLAPACK.
binding() {
    # shellcheck disable=SC2086
    LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/ld" "$MPIEXEC" $MPIEXEC_PREFLAGS -n 1 "$1" >/dev/null 2>&1
    grep -h "normal symbol \`pdgemr2d_'" "$work"/ld.* | head -1
    rm -f "$work"/ld.*
}
b=$(binding "$dir/relink_redist")
if [[ "$b" == *libredist_scalapack* ]]; then echo "ok: relinked pdgemr2d_ binds to libredist_scalapack"
else fail "relinked pdgemr2d_ binding: ${b:-none found}"; fi
b=$(binding "$dir/relink_scalapack")
if [[ "$b" == *libscalapack* ]]; then echo "ok: the plain build's pdgemr2d_ binds to ScaLAPACK"
else fail "plain pdgemr2d_ binding: ${b:-none found}"; fi
finish
