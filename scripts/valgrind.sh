#!/usr/bin/env bash
# Memory checks (docs/architecture.md, "Memory checks"): valgrind's memcheck on every serial
# test and on a set of MPI tests, built by the normal build (`make build`).
#
#   BUILD_DIR             the build tree (default build); it must be built
#   VALGRIND              the valgrind program (default valgrind)
#   VALGRIND_SHORT        1: CI's short version (fewer MPI tests and cases, one on 3 ranks)
#   VALGRIND_SERIAL       0: skip the serial tests
#   VALGRIND_MPI_TESTS    the MPI tests, ';'-separated, each "name [args]" for
#                         tests/mpi/test_<name>, or "redist COMMAND [args]" for the tool
#                         (default below; "" for none), e.g. "window --cases 2;bmmc"
#   VALGRIND_NPROCS       rank counts for the entries without their own "N:" or "N,M:"
#                         prefix (default 2)
#   VALGRIND_JOBS         serial tests run in parallel (default: nproc)
#   VALGRIND_ARGS         extra valgrind flags, e.g. --gen-suppressions=all
#   VALGRIND_TIMEOUT      seconds per test before it counts as hung (default 600)
#
# Serial tests: every $BUILD_DIR/tests/unit/test_* (two take --quick, a smaller range of the
# same checks) and the fuzz corpus replays, with leak checking: a definitely or indirectly lost
# block, an invalid access or a use of an uninitialised value fails the test. MPI tests run
# under the launcher of $BUILD_DIR/mpiexec.env, valgrind on every rank, with the suppression
# file of the MPI implementation (tests/valgrind/openmpi.supp or mpich.supp), which hides
# reports that lie wholly inside MPI and its runtime, never one whose stack reaches our code
# other than through MPI_Init or MPI_Finalize.
#
# A test fails if valgrind reports any error (its summary counts one) or the test itself
# fails. Each failure prints valgrind's report (with the origins of uninitialised values, by
# a second run); every log is kept in $BUILD_DIR/valgrind/. Exit status 1 if any test failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
src_dir=$(pwd)

BUILD_DIR="${BUILD_DIR:-build}"
VALGRIND="${VALGRIND:-valgrind}"
VALGRIND_SHORT="${VALGRIND_SHORT:-0}"
VALGRIND_SERIAL="${VALGRIND_SERIAL:-1}"
VALGRIND_JOBS="${VALGRIND_JOBS:-$(nproc 2>/dev/null || echo 2)}"
VALGRIND_ARGS="${VALGRIND_ARGS:-}"
VALGRIND_TIMEOUT="${VALGRIND_TIMEOUT:-600}"
# MPI tests with few cases (their --cases options): under valgrind a rank runs 20-50 times
# slower, and three ranks share two cores. "3: name" runs on 3 ranks instead. Not here:
# test_bounded and test_scalapack_leak measure the heap with mallinfo2, which valgrind's
# allocator does not feed; test_lbp96 and test_tcr96 take minutes.
tool_run="redist run --from n=120x100,block=16x8,order=col --to n=100x120,block=32x5,order=col"
tool_run+=" --permute 1,0 --verify --repeat 2"
if [ "$VALGRIND_SHORT" = 1 ]; then
  default_mpi="window --cases 3;batch --cases 4;hostile;catalogue;bmmc;coll_reduce;faults"
  default_mpi+=";$tool_run;3: inter;3: window --cases 2"
else
  default_mpi="window --cases 20;batch --cases 20;gen_block --cases 15"
  default_mpi+=";random_layouts --cases 15;hostile;errors;catalogue;inter;relabel;sections"
  default_mpi+=";bmmc;lbp96_nd;machine;layout_api --cases 20;coll_alltoall;coll_gather"
  default_mpi+=";coll_reduce;coll_conventions;coll_checking;scalapack --cases 10;faults"
  default_mpi+=";scalapack_dropin --cases 5"
  default_mpi+=";stress --executes 50 --plans 50"
  default_mpi+=";$tool_run;redist explain --from n=1000,block=4,procs=4 --to n=1000,block=6"
  default_mpi+=";3: window --cases 6;3: batch --cases 6;3: gen_block --cases 6"
  default_mpi+=";3: random_layouts --cases 6;3: hostile;3: errors;3: catalogue;3: inter"
  default_mpi+=";3: relabel;3: sections;3: coll_alltoall;3: coll_gather;3: coll_reduce"
  default_mpi+=";3: coll_conventions;3: faults;3: stress --executes 20 --plans 20"
fi
VALGRIND_NPROCS="${VALGRIND_NPROCS:-2}"
VALGRIND_MPI_TESTS="${VALGRIND_MPI_TESTS-$default_mpi}"

if ! command -v "$VALGRIND" >/dev/null 2>&1; then
  echo "valgrind: $VALGRIND not found (apt-get install valgrind)" >&2
  exit 1
fi
if [ ! -f "$BUILD_DIR/mpiexec.env" ] || [ ! -d "$BUILD_DIR/tests/unit" ]; then
  echo "valgrind: $BUILD_DIR is not built (make build BUILD_DIR=$BUILD_DIR)" >&2
  exit 1
fi
build=$(cd "$BUILD_DIR" && pwd)
logdir="$build/valgrind"
rm -rf "$logdir"
mkdir -p "$logdir"

# Flags for every run. Leaks: definite and indirect ones are errors ("possibly lost" blocks
# are interior pointers, which MPI libraries are full of); still-reachable blocks are not.
# --keep-debuginfo: MPI unloads its components at MPI_Finalize; their frames keep their names
# (and so the suppressions match them).
# shellcheck disable=SC2054 # commas inside flags
vg_flags=(--tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect
  --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --num-callers=40
  --keep-debuginfo=yes --child-silent-after-fork=yes --show-error-list=yes)

# ---- failure reports ------------------------------------------------------------------------
failed=()
report() { # report NAME LOG...: print the errors of valgrind's logs (not the banners)
  local name=$1 log
  shift
  echo "---- $name: valgrind's report"
  for log in "$@"; do
    [ -s "$log" ] || continue
    if grep -qE 'ERROR SUMMARY: [1-9]' "$log"; then
      echo "-- $log"
      # the errors and leaks, without the banner, the heap summary and the suppressed counts
      sed -E -e '/^==[0-9]+== (Memcheck,|Copyright|Using Valgrind|Command:|Parent PID:)/d' \
        -e '/^==[0-9]+== +(in use at exit|total heap usage|definitely lost:|indirectly lost:|possibly lost:|still reachable:|suppressed:|of which reachable)/d' \
        -e '/^==[0-9]+== (HEAP SUMMARY|LEAK SUMMARY|For lists of|For counts of|Rerun with|To see them)/d' \
        -e '/^==[0-9]+== *$/d' "$log"
    fi
  done
}
errors_in() { # errors_in LOG...: true if a log reports an error
  local log
  for log in "$@"; do
    grep -qE 'ERROR SUMMARY: [1-9]' "$log" 2>/dev/null && return 0
  done
  return 1
}

# ---- serial tests ---------------------------------------------------------------------------
# One line per test: "name|program args...". Two exhaustive tests take --quick (their own
# smaller range); the fuzz targets' replays read the committed corpus.
serial_list() {
  local t name
  local -A listed=()
  # the longest first, so that the parallel runs end together
  for t in "$build"/tests/unit/test_{pattern,bmmc_factor,rowsched,circulant,bruck} \
    "$build"/tests/unit/test_*; do
    [ -x "$t" ] || continue
    name=${t##*/}
    [ -z "${listed[$name]:-}" ] || continue
    listed[$name]=1
    case "$name" in
      test_rowsched | test_bmmc_factor) echo "$name|$t --quick" ;;
      *) echo "$name|$t" ;;
    esac
  done
  for t in "$build"/tests/fuzz/fuzz_*_replay; do
    [ -x "$t" ] || continue
    name=${t##*/fuzz_}
    name=${name%_replay}
    [ -d "$src_dir/tests/fuzz/corpus/$name" ] &&
      echo "fuzz_${name}_replay|$t $src_dir/tests/fuzz/corpus/$name"
  done
}

# run_serial "name|command": one test under valgrind; prints one status line.
# shellcheck disable=SC2317 # run by xargs through bash -c
run_serial() {
  local name=${1%%|*} cmd=${1#*|} log out rc start secs
  log="$logdir/$name.vg.log"
  out="$logdir/$name.out"
  start=$(date +%s)
  # shellcheck disable=SC2086
  timeout "$VALGRIND_TIMEOUT" "$VALGRIND" "${vg_flags[@]}" --log-file="$log" $VALGRIND_ARGS \
    $cmd >"$out" 2>&1
  rc=$?
  secs=$(($(date +%s) - start))
  if errors_in "$log"; then
    echo "FAIL $name (valgrind errors, ${secs}s)"
  elif [ "$rc" -ne 0 ]; then
    echo "FAIL $name (exit $rc, ${secs}s)"
  else
    echo "ok   $name (${secs}s)"
  fi
}
export -f run_serial errors_in
export VALGRIND VALGRIND_ARGS VALGRIND_TIMEOUT logdir

start_all=$(date +%s)
if [ "$VALGRIND_SERIAL" != 0 ]; then
  echo "== valgrind: serial tests ($VALGRIND_JOBS at a time; logs in $logdir)"
  vg_flags_str=$(printf '%q ' "${vg_flags[@]}")
  export vg_flags_str
  # xargs runs each line in its own bash (arrays cannot be exported: passed as a string)
  # shellcheck disable=SC2016 # $vg_flags_str and $1 are expanded by the inner bash
  while IFS= read -r line; do
    echo "$line"
  done < <(serial_list) |
    xargs -d '\n' -P "$VALGRIND_JOBS" -I{} bash -c \
      'eval "vg_flags=($vg_flags_str)"; run_serial "$1"' _ {} |
    tee "$logdir/serial.txt"
  while IFS= read -r line; do
    case "$line" in
      FAIL*)
        name=${line#FAIL }
        name=${name%% *}
        failed+=("$name")
        cmd=$(serial_list | grep "^$name|" | cut -d'|' -f2-)
        echo "---- $name: $cmd"
        tail -n 20 "$logdir/$name.out"
        report "$name" "$logdir/$name.vg.log"
        if grep -q 'uninitialised' "$logdir/$name.vg.log"; then
          echo "---- $name: again with --track-origins=yes"
          # shellcheck disable=SC2086
          timeout "$VALGRIND_TIMEOUT" "$VALGRIND" "${vg_flags[@]}" --track-origins=yes \
            --log-file="$logdir/$name.origins.vg.log" $VALGRIND_ARGS $cmd >/dev/null 2>&1
          report "$name (origins)" "$logdir/$name.origins.vg.log"
        fi
        ;;
    esac
  done <"$logdir/serial.txt"
  echo "== valgrind: serial tests took $(($(date +%s) - start_all))s"
fi

# ---- MPI tests ------------------------------------------------------------------------------
if [ -n "${VALGRIND_MPI_TESTS// /}" ]; then
  # shellcheck disable=SC1091
  source "$build/mpiexec.env"
  # the environment ctest gives MPI tests (CMakeLists.txt, REDIST_MPI_TEST_ENV)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_rmaps_base_oversubscribe=1
  mpi=other # CMakeLists.txt's REDIST_MPI, from mpi.h's macros
  grep -q '^REDIST_MPI_HAS_OPEN_MPI:INTERNAL=1' "$build/CMakeCache.txt" && mpi=openmpi
  grep -q '^REDIST_MPI_HAS_MPICH:INTERNAL=1' "$build/CMakeCache.txt" && mpi=mpich
  supp=()
  case "$mpi" in
    openmpi)
      supp+=(--suppressions="$src_dir/tests/valgrind/openmpi.supp")
      # Open MPI's own file (Debian's package), older reports of the same kind
      f=/usr/share/openmpi/openmpi-valgrind.supp
      if [ -f "$f" ]; then supp+=(--suppressions="$f"); fi
      ;;
    mpich)
      supp+=(--suppressions="$src_dir/tests/valgrind/mpich.supp")
      # MPICH (ch4:ucx) never frees a receive that is cancelled, nor the datatype it holds: the
      # datatypes of test_faults' 'MPI error' parts would be reported lost although the library
      # frees its handles (the test's own count of live datatypes checks that, in make check).
      export FAULTS_SKIP="MPI error"
      echo "valgrind: MPICH: test_faults skips its 'MPI error' parts (FAULTS_SKIP): MPICH leaks cancelled receives"
      ;;
    *) echo "valgrind: no suppression file for MPI '$mpi'; MPI's own reports will fail" >&2 ;;
  esac
  echo "== valgrind: MPI tests ($mpi; logs in $logdir)"
  IFS=';' read -r -a mpi_tests <<<"$VALGRIND_MPI_TESTS"
  declare -A seen=()
  for spec in "${mpi_tests[@]}"; do
    spec=$(echo "$spec" | sed -E 's/^ +| +$//g')
    [ -n "$spec" ] || continue
    nprocs=$VALGRIND_NPROCS
    if [[ "$spec" =~ ^([0-9,]+):\ *(.*)$ ]]; then # "2,3: name args": its own rank counts
      nprocs=${BASH_REMATCH[1]//,/ }
      spec=${BASH_REMATCH[2]}
    fi
    for np in $nprocs; do
      tname=${spec%% *}
      targs=""
      [ "$spec" != "$tname" ] && targs=${spec#* }
      prog="$build/tests/mpi/test_$tname"
      name="mpi_${tname}_np$np"
      if [ "$tname" = redist ]; then # the tool: "redist COMMAND ..."
        prog="$build/redist"
        name="redist_${targs%% *}_np$np"
      fi
      base=${name%_np*} k=2 # a second entry of one test: its own logs
      while [ -n "${seen[$name]:-}" ]; do
        name="${base}_${k}_np$np"
        k=$((k + 1))
      done
      seen[$name]=1
      if [ ! -x "$prog" ]; then
        echo "FAIL $name (no program $prog)"
        failed+=("$name")
        continue
      fi
      rm -f "$logdir/$name".*.vg.log
      start=$(date +%s)
      # shellcheck disable=SC2086
      timeout "$VALGRIND_TIMEOUT" "$MPIEXEC" $MPIEXEC_NUMPROC_FLAG "$np" $MPIEXEC_PREFLAGS \
        "$VALGRIND" "${vg_flags[@]}" "${supp[@]}" --log-file="$logdir/$name.%p.vg.log" \
        $VALGRIND_ARGS "$prog" $targs $MPIEXEC_POSTFLAGS >"$logdir/$name.out" 2>&1
      rc=$?
      secs=$(($(date +%s) - start))
      logs=("$logdir/$name".*.vg.log)
      nlogs=$(find "$logdir" -maxdepth 1 -name "$name.*.vg.log" | wc -l)
      if errors_in "${logs[@]}"; then
        echo "FAIL $name (valgrind errors, ${secs}s)"
      elif [ $rc -ne 0 ] || [ "$nlogs" -ne "$np" ]; then
        echo "FAIL $name (exit $rc, $nlogs valgrind logs for $np ranks, ${secs}s)"
        tail -n 20 "$logdir/$name.out"
      else
        echo "ok   $name (${secs}s)"
        continue
      fi
      failed+=("$name")
      echo "---- $name: $MPIEXEC $MPIEXEC_NUMPROC_FLAG $np ... $prog $targs"
      report "$name" "${logs[@]}"
    done
  done
fi

secs=$(($(date +%s) - start_all))
if [ ${#failed[@]} -eq 0 ]; then
  echo "valgrind: PASSED in ${secs}s (logs in $logdir)"
  exit 0
fi
echo "valgrind: FAILED in ${secs}s: ${failed[*]} (logs in $logdir)"
exit 1
