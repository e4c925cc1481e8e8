#!/usr/bin/env bash
# Runs each libFuzzer harness (fuzz/fuzz_*.cpp, built by scripts/lib.sh build_sanitized into
# build-asan with ASan + UBSan) for SECONDS from its committed seeds (fuzz/corpus/NAME), one after
# another, and prints executions and findings per harness. New inputs go to a scratch corpus that
# is removed afterwards; a crashing input is saved to fuzz/findings/ (not committed: make it a
# regression test). Exit status 1 when any harness found something.
#   scripts/fuzz.sh [SECONDS=60] [NAME ...]      e.g. scripts/fuzz.sh 15 fuzz_npy fuzz_stats
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
SECONDS_EACH="${1:-60}"
shift || true
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in fuzz/fuzz_*.cpp; do names+=("$(basename "$f" .cpp)"); done
fi
build_sanitized --target "${names[@]}" >/dev/null
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"
# OpenCV reads its pixel limit when it loads: 4 Mpixel instead of 1 Gpixel, so that an image
# header claiming a huge size is refused instead of exhausting the fuzzer's memory.
export OPENCV_IO_MAX_IMAGE_PIXELS=4194304
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p fuzz/findings
failed=0
# EDGEQ_FUZZ_SEED fixes libFuzzer's random seed (CI: the same inputs in the same order every run,
# so a run that was clean stays clean on a slower machine, which only reaches fewer of them);
# unset, each run explores new inputs.
seed=()
[ -n "${EDGEQ_FUZZ_SEED:-}" ] && seed=(-seed="$EDGEQ_FUZZ_SEED")
printf '%-16s %8s %12s %10s  %s\n' harness seconds executions exec/s result
for name in "${names[@]}"; do
  mkdir -p "$work/$name"
  set +e
  # -fork=0, one process; -timeout: an input running over 10 s is a finding (a hang);
  # -rss_limit_mb: one over 2 GiB is too.
  build-asan/"$name" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 "${seed[@]}" \
    -print_final_stats=1 -artifact_prefix="fuzz/findings/${name}-" \
    "$work/$name" "fuzz/corpus/$name" >"$work/$name.log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$name.log" | tail -1)
  if [ $rc -eq 0 ]; then
    result="no finding"
  else
    result="FINDING (exit $rc): $(grep -m1 -E 'ERROR|finding|runtime error|Assertion' "$work/$name.log" || true)"
    failed=1
    tail -40 "$work/$name.log" >&2
  fi
  printf '%-16s %8s %12s %10s  %s\n' "$name" "$SECONDS_EACH" "${execs:-?}" "${rate:-?}" "$result"
done
exit $failed
