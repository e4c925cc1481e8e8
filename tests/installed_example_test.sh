#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds examples/ against that prefix alone (no
# source tree on its include path) and runs the example on the in-tree model and photos; the
# quantized file must equal what `edgeq quantize` writes from the same statistics.
# Usage: installed_example_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
test -f "$tmp/prefix/include/edgeq/edgeq.h"
! test -e "$tmp/prefix/include/quant"  # private headers stay private
cmake -S "$src/examples" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$tmp/configure.log"
cmake --build "$tmp/build" -j2 > "$tmp/build.log"
model=$src/models/yolo11n-pose.onnx images=$src/data/coco8-pose/images/train
"$tmp/build/quantize_yolo" "$model" "$images" "$tmp/q.onnx" w8a8 | tee "$tmp/out.txt"
grep -q "calibrated 4 images; w8a8" "$tmp/out.txt"
# The same recipe through the program: calibrate 8 (clamped to 4) with the same seed, quantize.
"$tmp/prefix/bin/edgeq" calibrate --model "$model" --images "$images" --n 8 \
  --out "$tmp/s.cbor" > /dev/null 2>&1
"$tmp/prefix/bin/edgeq" quantize --model "$model" --stats "$tmp/s.cbor" --scheme w8a8 \
  --out "$tmp/cli.onnx" > /dev/null 2>&1
cmp "$tmp/q.onnx" "$tmp/cli.onnx"
echo "installed example: ok"
