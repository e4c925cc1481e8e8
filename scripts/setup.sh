#!/usr/bin/env bash
# Installs what edgeq needs (Debian packages, ONNX Runtime for Node as the test oracle) and builds
# it in Release into build/. Safe to run again: it only installs what is missing.
# EDGEQ_BUILD_TARGETS="edgeq ..." builds only those targets (scripts/demo.sh: the program alone);
# by default everything (the program, the tests, the benchmarks).
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(build-essential cmake pkg-config libonnx-dev libprotobuf-dev protobuf-compiler libdnnl-dev
      libopencv-dev nlohmann-json3-dev libcli11-dev libsqlite3-dev libgtest-dev libgmock-dev
      libbenchmark-dev libeigen3-dev chromium libonnx-testdata
      pybind11-dev python3-dev python3-numpy python3-pytest python3-venv python3-pip
      python3-setuptools python3-wheel python3-tqdm python3-yaml)
# Node.js may come from elsewhere (nodesource, nvm): take Debian's only when there is none.
command -v node >/dev/null && command -v npm >/dev/null || PKGS+=(nodejs npm)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -d tools/ort/node_modules/onnxruntime-node ]; then
  echo "== installing onnxruntime-node (the ONNX Runtime oracle)"
  (cd tools/ort && ONNXRUNTIME_NODE_INSTALL_CUDA=skip npm install --no-audit --no-fund --loglevel=error)
fi

echo "== building (Release)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DEDGEQ_WERROR="${EDGEQ_WERROR:-OFF}" >/dev/null
targets=()
for t in ${EDGEQ_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"

# The Python module (python/), when it was built: installed for Debian's interpreter, so that
# `/usr/bin/python3 -c "import edgeq"` works from anywhere (PYTHONPATH=build/python uses the
# build tree instead).
if ls build/python/edgeq/_edgeq*.so >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO cmake --install build --component python >/dev/null
  echo "== installed the Python package: $(/usr/bin/python3 -c 'import edgeq; print(edgeq.__file__)')"
fi
