#!/usr/bin/env bash
# The three ways programs meet (examples/): one MPMD launch, a program that spawns its
# partner, and two jobs launched separately that meet through a port (with Open MPI, through
# ompi-server as their common name server). Each run checks every element on the receiving
# side and exits non-zero on a wrong element or a library error. REDIST_MPI (openmpi, mpich,
# other) names the MPI library. MPICH 4.0's ch4:ucx device (Debian 12's MPICH) has no dynamic
# processes: MPI_Open_port, which MPI_Comm_spawn uses too, fails there with "not supported
# with ucx netmod"; with such an MPICH the test checks that spawn and meet fail in exactly
# that way and says so, and checks every element where they run.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
: "${BUILD_DIR:?}" "${MPIEXEC:?}"
ex="$BUILD_DIR/examples"
# Processes of different jobs (spawned, connected) reach each other over TCP only.
flags="${MPIEXEC_PREFLAGS/self,vader/self,vader,tcp}"
work=$(mktemp -d)
trap 'rm -rf "$work" "$CLI_OUT" "$CLI_ERR"; [[ -n "${server_pid:-}" ]] && kill "$server_pid" 2>/dev/null' EXIT

# expect_verified NAME: the last run exited 0 and every receiving rank reported 0 wrong.
expect_verified() {
    if [[ "$CLI_STATUS" != 0 ]]; then fail "$1: exit $CLI_STATUS"
    elif ! grep -q "0 wrong" "$CLI_OUT" || grep -Eq " [1-9][0-9]* wrong" "$CLI_OUT"; then
        fail "$1: not every element verified"
    else echo "ok: $1"; fi
}

# run_mpi_abort SECONDS CMD...: run_cmd SECONDS CMD, made again up to twice when it fails with nothing on
# stdout or stderr. Where an MPI call fails and aborts (MPICH without ports), MPICH's launcher
# can kill the ranks before any of them prints its abort message (exit 15, no output: seen in
# CI runs); the callers then still require the message.
run_mpi_abort() {
    local t=$1
    shift
    run_cmd "$t" "$@"
    local again
    for again in 1 2; do
        [[ "$CLI_STATUS" != 0 && ! -s "$CLI_ERR" && ! -s "$CLI_OUT" ]] || return 0
        echo "note: exit $CLI_STATUS with no output: run again ($again of 2): ${*##*/}"
        run_cmd "$t" "$@"
    done
}

# shellcheck disable=SC2086
run_cmd 120 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 2 "$ex/mpmd" producer : -n 3 "$ex/mpmd" consumer
expect_verified "MPMD, 2 producers -> 3 consumers"
# shellcheck disable=SC2086
run_cmd 120 "$MPIEXEC" $MPIEXEC_PREFLAGS -n 3 "$ex/mpmd" producer : -n 1 "$ex/mpmd" consumer
expect_verified "MPMD, 3 producers -> 1 consumer"

# Whether this MPI has no dynamic processes (MPICH's ch4:ucx): one server rank fails at once in
# MPI_Open_port with MPICH's message (and is stopped after 10 s where ports work).
no_ports=0
if [[ "${REDIST_MPI:-}" == mpich ]]; then
    # shellcheck disable=SC2086
    run_mpi_abort 10 "$MPIEXEC" $flags -n 1 "$ex/meet" server "$work/probe.txt"
    if [[ "$CLI_STATUS" != 0 && "$CLI_STATUS" != 124 ]] &&
        grep -q "MPI_Open_port.*failed" "$CLI_ERR" &&
        grep -q "not supported with ucx netmod" "$CLI_ERR"; then
        no_ports=1
        echo "note: this MPICH has no dynamic processes (MPI_Open_port: not supported with ucx netmod)"
    fi
fi

# shellcheck disable=SC2086
if [[ $no_ports == 1 ]]; then run_mpi_abort 120 "$MPIEXEC" $flags -n 2 "$ex/spawn" 3
else run_cmd 120 "$MPIEXEC" $flags -n 2 "$ex/spawn" 3; fi
if [[ $no_ports == 1 && "$CLI_STATUS" != 0 ]] &&
    grep -q "MPI_Comm_spawn.*failed" "$CLI_ERR" && grep -q "Error in spawn call" "$CLI_ERR"; then
    echo "ok: spawn fails as this MPICH does without dynamic processes (Error in spawn call)"
else
    expect_verified "spawn, 2 parents -> 3 children"
fi

if [[ "${REDIST_MPI:-}" == mpich ]]; then
    # MPICH: a port name reaches the other job without a name server.
    if [[ $no_ports == 1 ]]; then
        # shellcheck disable=SC2086
        run_mpi_abort 120 "$MPIEXEC" $flags -n 2 "$ex/meet" server "$work/port.txt"
        if [[ $CLI_STATUS != 0 ]] && grep -q "not supported with ucx netmod" "$CLI_ERR"; then
            echo "ok: meet fails as this MPICH does without dynamic processes (MPI_Open_port)"
        else
            fail "meet's server exited $CLI_STATUS on an MPICH without ports"
        fi
    else
        # shellcheck disable=SC2086
        timeout -k 5 120 "$MPIEXEC" $flags -n 2 "$ex/meet" server "$work/port.txt" \
            >"$work/srv.out" 2>&1 &
        srv=$!
        srv_status=0
        # shellcheck disable=SC2086
        run_cmd 120 "$MPIEXEC" $flags -n 3 "$ex/meet" client "$work/port.txt"
        expect_verified "two jobs meet through a port, 2 -> 3"
        wait "$srv" || srv_status=$?
        if [[ $srv_status != 0 ]]; then fail "the server job exited $srv_status: $(head -c 400 "$work/srv.out")"
        else echo "ok: the server job"; fi
    fi
elif command -v ompi-server >/dev/null; then
    ompi-server --no-daemonize -r "$work/uri.txt" >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do [[ -s "$work/uri.txt" ]] && break; sleep 0.1; done
    # shellcheck disable=SC2086
    timeout -k 5 120 "$MPIEXEC" $flags --ompi-server "file:$work/uri.txt" -n 2 "$ex/meet" server \
        "$work/port.txt" >"$work/srv.out" 2>&1 &
    srv=$!
    # shellcheck disable=SC2086
    run_cmd 120 "$MPIEXEC" $flags --ompi-server "file:$work/uri.txt" -n 3 "$ex/meet" client \
        "$work/port.txt"
    expect_verified "two jobs meet through a port, 2 -> 3"
    srv_status=0
    wait "$srv" || srv_status=$?
    if [[ $srv_status != 0 ]]; then fail "the server job exited $srv_status: $(head -c 400 "$work/srv.out")"
    else echo "ok: the server job"; fi
else
    fail "ompi-server not found (Open MPI's name server, in openmpi-bin)"
fi
finish
