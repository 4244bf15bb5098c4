#!/usr/bin/env bash
# Open MPI's rsh agent for virtual hosts on this machine (docs/performance.md, "Many nodes"):
#
#   mpiexec --mca plm_rsh_agent bench/vnodes_rsh.sh --host vn1:2,vn2:2,... --mca btl tcp,vader,self
#
# mpiexec starts one daemon per host through its rsh agent ("AGENT [options] HOST COMMAND");
# this one runs COMMAND here instead of on HOST. Each virtual host then has its own daemon, so
# Open MPI sees several nodes: MPI_COMM_TYPE_SHARED groups the ranks of one virtual host, its
# ranks talk through shared memory (vader) and the ranks of different hosts through TCP. The
# daemons of one machine would share the session directory and the names of vader's segments
# (both named after the machine's hostname), so each host gets its own: TMPDIR and vader's
# backing directory, under ${TMPDIR:-/tmp} and /dev/shm.
set -euo pipefail
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done # ssh's options, if any
[ $# -ge 2 ] || { echo "vnodes_rsh.sh: usage: vnodes_rsh.sh [options] HOST COMMAND..." >&2; exit 2; }
host=$1
shift
case $host in *[!A-Za-z0-9._-]*) echo "vnodes_rsh.sh: bad host name '$host'" >&2; exit 2 ;; esac
base=${TMPDIR:-/tmp}/redist-vnodes-$(id -u)/$host
shm=/dev/shm/redist-vnodes-$(id -u)-$host
mkdir -p "$base" "$shm"
export TMPDIR=$base OMPI_MCA_btl_vader_backing_directory=$shm
exec /bin/bash -c "$*"
