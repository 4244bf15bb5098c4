#!/usr/bin/env bash
# Runs the libFuzzer targets built by `make fuzz` (docs/architecture.md, "Fuzzing"), each for
# FUZZ_SECONDS seconds, one after the other, on its committed corpus.
#
#   FUZZ_DIR      the build tree (default build-fuzz); binaries in $FUZZ_DIR/tests/fuzz/
#   FUZZ_SECONDS  seconds per target (default 60)
#   FUZZ_TARGETS  names to run (default: every fuzz_* binary), e.g. "spec pattern"
#   FUZZ_ARGS     extra libFuzzer flags
#
# The committed corpus tests/fuzz/corpus/<name>/ is only read: new inputs go to
# $FUZZ_DIR/fuzz-corpus/<name>/ (kept between runs, not in git), crashes, leaks and timeouts
# to $FUZZ_DIR/fuzz-artifacts/, each target's output to $FUZZ_DIR/fuzz-<name>.log. Exit
# status 1 if any target failed; each failure names its reproducer and the command that
# replays it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

FUZZ_DIR="${FUZZ_DIR:-build-fuzz}"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
FUZZ_TARGETS="${FUZZ_TARGETS:-}"
FUZZ_ARGS="${FUZZ_ARGS:-}"
bindir="$FUZZ_DIR/tests/fuzz"

if [ -z "$FUZZ_TARGETS" ]; then
  for bin in "$bindir"/fuzz_*; do
    [ -x "$bin" ] || continue
    case "$bin" in *_replay) continue ;; esac
    FUZZ_TARGETS+="${bin##*/fuzz_} "
  done
fi
if [ -z "${FUZZ_TARGETS// /}" ]; then
  echo "fuzz: no fuzz targets in $bindir (run make fuzz)" >&2
  exit 1
fi

failed=0
summary=()
for name in $FUZZ_TARGETS; do
  bin="$bindir/fuzz_$name"
  seeds="tests/fuzz/corpus/$name"
  work="$FUZZ_DIR/fuzz-corpus/$name"
  artifacts="$FUZZ_DIR/fuzz-artifacts"
  log="$FUZZ_DIR/fuzz-$name.log"
  if [ ! -x "$bin" ]; then
    echo "fuzz: no target $bin" >&2
    failed=1
    continue
  fi
  mkdir -p "$work" "$artifacts"
  dirs=("$work")
  [ -d "$seeds" ] && dirs+=("$seeds")
  echo "== fuzz_$name: ${FUZZ_SECONDS} s (log: $log)"
  # libFuzzer stops starting new inputs after -max_total_time; the outer timeout only guards
  # against a hang outside an input (each input has -timeout).
  # shellcheck disable=SC2086
  timeout --signal=INT $((FUZZ_SECONDS + 300)) "$bin" -max_total_time="$FUZZ_SECONDS" \
    -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
    $FUZZ_ARGS "${dirs[@]}" > "$log" 2>&1
  rc=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(sed -nE 's/.* cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+)\/.*/cov \1, features \2, corpus \3/p' \
        <<< "$done_line")
  if [ $rc -eq 0 ]; then
    line="fuzz_$name: ok, ${runs:-?} inputs, ${secs:-?} exec/s, ${cov:-no final stats}"
  else
    failed=1
    repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    line="fuzz_$name: FAILED (exit $rc)"
    echo "---- fuzz_$name: the end of $log"
    grep -v '^    #[0-9]' "$log" | tail -n 30
    if [ -n "$repro" ]; then
      line+=", reproducer $repro; replay: $bin $repro"
    else
      line+=", no reproducer written (see $log)"
    fi
  fi
  echo "$line"
  summary+=("$line")
done

echo ""
echo "== fuzz summary (${FUZZ_SECONDS} s per target)"
for line in "${summary[@]}"; do
  echo "   $line"
done
if [ $failed -ne 0 ]; then
  echo "make fuzz: FAILED"
  exit 1
fi
echo "make fuzz: PASSED"
