#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the whole test suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
# Warnings are errors here (and so in CI).
EDGEQ_WERROR=ON ./scripts/setup.sh
cd build
ctest --output-on-failure -j2 --timeout 900
