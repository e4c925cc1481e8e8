#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the whole test suite with CTest; then (CI) the sanitizer
# subset (scripts/test_sanitize.sh) and each fuzz harness for a short fixed time (scripts/fuzz.sh).
# EDGEQ_CI_QUICK=1 skips the last two.
set -euo pipefail
cd "$(dirname "$0")/.."
# Warnings are errors here (and so in CI).
EDGEQ_WERROR=ON ./scripts/setup.sh
(cd build && ctest --output-on-failure -j2 --timeout 900)
if [ "${EDGEQ_CI_QUICK:-0}" != 1 ]; then
  ./scripts/test_sanitize.sh
  EDGEQ_FUZZ_SEED=1 ./scripts/fuzz.sh 15
fi
