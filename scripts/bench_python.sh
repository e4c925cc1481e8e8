#!/usr/bin/env bash
# The Python package's benchmarks (bench/python_session.py): per-call overhead of Session against
# the C++ executor, and two Python threads against one. Prints the CPU it ran on.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/python/edgeq/__init__.py ] || EDGEQ_BUILD_TARGETS="edgeq edgeq_python" ./scripts/setup.sh
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores," \
  "$(grep -q avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2)$(grep -q -E 'avx512_vnni|avx_vnni' /proc/cpuinfo && echo ' with VNNI')"
exec /usr/bin/python3 bench/python_session.py "$@"
