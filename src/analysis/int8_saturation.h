// The doctor's view of int8 saturation on x86 CPUs without VNNI (docs/lessons.md, lesson 10): which
// Convs of a QDQ model have pairs of weight codes that can overflow the int16 that ONNX Runtime's
// and oneDNN's int8 kernels add two products into (runtime/int8_pairs.h), how often they did on
// images (ORT's order, raw u8 codes), and what the emulation of those kernels predicts for the
// detections. Targets say whether they pair products (TargetOps::int8_pairs): "saturate" (cpu-avx2:
// flagged as warnings), "depends" (cpu: explained as info, with and without VNNI).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/finding.h"
#include "analysis/op_support.h"
#include "core/tensor.h"
#include "eval/detection_diff.h"
#include "ir/graph.h"

namespace edgeq {

struct ConvPairs {
  std::string node;          // the Conv (u8 input codes, int8 weight codes)
  int64_t pairs = 0;         // products ONNX Runtime pairs per output position, over all channels
  int64_t overflow_ort = 0;  // ... whose weights can overflow an int16 (PairOrder::kOnnxRuntime)
  int64_t overflow_onednn = 0;  // the same under PairOrder::kOneDnn
  // With images: sums of ORT's overflow-prone pairs computed, and those that left int16.
  int64_t evaluated = 0, saturated = 0;
};

struct SaturationReport {
  std::vector<ConvPairs> convs;  // every int8 Conv, graph order
  int64_t images = 0;            // images measured (0: weights only)
  // With images and a YOLO head: detections of the exact int8 run against the emulation of ORT's
  // AVX2 kernels (--exec int8 --emulate avx2), in input pixels.
  std::optional<DetectionDiff> predicted;
};

// The weight pairs of every int8 Conv of a QDQ model (none for a float model).
SaturationReport int8_pair_report(const Graph& qdq);
// Adds how often the pairs saturated on `inputs` and the predicted detections.
void measure_saturation(const Graph& qdq, const std::vector<std::map<std::string, Tensor>>& inputs,
                        SaturationReport& r);
// Findings for a target that pairs products (target.int8_pairs not empty).
std::vector<Finding> saturation_findings(const SaturationReport& r, const TargetOps& target);

}  // namespace edgeq
