// Shared by the benchmarks: the model they run and a deterministic stand-in image.
#pragma once
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "ir/onnx_io.h"

namespace edgeq::bench {

// EDGEQ_BENCH_MODEL, else the repository's models/yolo11n-pose.onnx. Loads it into g; without a
// model, marks the benchmark skipped and returns false.
inline bool load_bench_model(benchmark::State& state, Graph& g) {
  std::string path;
  if (const char* env = std::getenv("EDGEQ_BENCH_MODEL")) {
    path = env;
  } else {
    std::string p = std::string(EDGEQ_SOURCE_DIR) + "/models/yolo11n-pose.onnx";
    if (std::filesystem::exists(p)) path = p;
  }
  if (path.empty()) {
    state.SkipWithError("no model: set EDGEQ_BENCH_MODEL (models/yolo11n-pose.onnx is missing)");
    return false;
  }
  g = load_onnx(path);
  state.SetLabel(path);
  return true;
}

// A tensor of the input's shape filled with a fixed pattern in [0, 1].
inline Tensor test_image(const ValueInfo& in) {
  Tensor x(in.dtype, in.shape);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float((i * 7919) % 255) / 255.f;
  return x;
}

}  // namespace edgeq::bench
