#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the whole test suite with CTest, the Python tests, the
# scheduler test (tests/slurm/run.sh), and the CPU-level tests again at capped instruction sets;
# then (CI) the sanitizer subset (scripts/test_sanitize.sh) and each fuzz harness for a short
# fixed time (scripts/fuzz.sh), when enough of CI's time is left for them (below).
# EDGEQ_CI_QUICK=1 skips the last two.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's end is printed with the seconds since the start (CI's log keeps only its tail).
stage_done() { echo "== test.sh [$SECONDS s] $1 done"; }
# Warnings are errors here (and so in CI).
EDGEQ_WERROR=ON ./scripts/setup.sh
stage_done "setup and build"
(cd build && ctest --output-on-failure -j2 --timeout 900)
stage_done ctest
# The Python package's tests (tests/python, pytest from Debian) on the build tree.
(cd tests/python && /usr/bin/python3 -m pytest -q -p no:cacheprovider)
stage_done pytest
# The scheduler test (tests/slurm/run.sh, about 2.5 minutes): deploy/slurm submitted to a real
# one-node Slurm cluster (scripts/slurm_local.sh: Debian's slurmctld, slurmd and munge, run as
# root; without root it fails with the reason), brought down whatever happens.
./tests/slurm/run.sh
stage_done tests/slurm
# The tests whose arithmetic depends on the CPU level again, with oneDNN and edgeq's loops capped to
# lower levels (docs/lessons.md, lesson 10): thread determinism and the int8 convolution at SSE4.1,
# and at AVX2 too where this CPU has AVX-512 (on an AVX2 CPU the run above is that level).
(cd build && ONEDNN_MAX_CPU_ISA=SSE41 EDGEQ_SIMD=scalar \
  ctest --output-on-failure -j2 --timeout 900 -R "ThreadDeterminism|QConv|Int8Pairing|CpuPeak")
if grep -qw avx512f /proc/cpuinfo; then
  (cd build && ONEDNN_MAX_CPU_ISA=AVX2 EDGEQ_SIMD=avx2 \
    ctest --output-on-failure -j2 --timeout 900 -R "ThreadDeterminism|QConv|Int8Exec|Int8Pairing")
fi
stage_done "capped CPU levels"
# CI stops a run at 90 minutes (EDGEQ_CI_BUDGET_S). The sanitizer build and subset and the fuzzers
# took 35 of them on a free 2-core Zen 3 (2026-12-07: the clang build 27.5 minutes, the subset
# 4.5, the fuzzers 3) after 39 for everything above; where fewer than 40 minutes
# (EDGEQ_SANITIZE_NEEDS_S) are left they are skipped with a line that says so, rather than CI
# running out of time in them (run them alone: scripts/test_sanitize.sh, scripts/fuzz.sh).
budget=${EDGEQ_CI_BUDGET_S:-5400} needs=${EDGEQ_SANITIZE_NEEDS_S:-2400}
if [ "${EDGEQ_CI_QUICK:-0}" = 1 ]; then
  :
elif [ $((budget - SECONDS)) -lt "$needs" ]; then
  echo "== test.sh [$SECONDS s] SKIPPED the sanitizer build and subset and the fuzzers:" \
    "$((budget - SECONDS)) s of the ${budget} s budget left, they need about ${needs} s" \
    "(run scripts/test_sanitize.sh and scripts/fuzz.sh alone)"
else
  ./scripts/test_sanitize.sh
  stage_done "sanitizer build and subset"
  EDGEQ_FUZZ_SEED=1 ./scripts/fuzz.sh 15
  stage_done fuzzing
fi
