#include "analysis/int8_saturation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/error.h"
#include "runtime/executor.h"
#include "runtime/int8_pairs.h"
#include "runtime/kernels/conv_common.h"
#include "runtime/pair_saturation.h"
#include "vision/postprocess.h"
#include "vision/yolo_layout.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

// A Conv reading 8-bit unsigned codes through DequantizeLinear, with int8 weight codes.
struct Int8Conv {
  size_t node = 0;
  std::string weights;  // int8 initializer [O, C/group, kH, kW]
  float in_scale = 1;
  int32_t in_zero_point = 0;
};

const Tensor* initializer(const Graph& g, const std::string& name) {
  auto it = g.initializers.find(name);
  return it == g.initializers.end() ? nullptr : &it->second;
}

std::optional<Int8Conv> int8_conv(const Graph& g, size_t i) {
  const Node& n = g.nodes[i];
  if (n.op_type != "Conv" || !n.domain.empty() || n.inputs.size() < 2) return std::nullopt;
  const int pw = g.producer_of(n.inputs[1]), px = g.producer_of(n.inputs[0]);
  if (pw < 0 || px < 0) return std::nullopt;
  const Node& dw = g.nodes[pw];
  const Node& dx = g.nodes[px];
  if (dw.op_type != "DequantizeLinear" || dx.op_type != "DequantizeLinear") return std::nullopt;
  const Tensor* w = initializer(g, dw.inputs.at(0));
  if (!w || w->dtype() != DType::kInt8 || w->rank() != 4) return std::nullopt;
  const Tensor* scale = dx.inputs.size() > 1 ? initializer(g, dx.inputs[1]) : nullptr;
  const Tensor* zp = dx.has_input(2) ? initializer(g, dx.inputs[2]) : nullptr;
  if (!scale || scale->numel() != 1 || !zp || zp->numel() != 1 || zp->dtype() != DType::kUInt8)
    return std::nullopt;
  return Int8Conv{i, dw.inputs[0], scale->to_floats()[0], zp->data<uint8_t>()[0]};
}

// How many of the prone pairs' sums leave int16 on one input (NCHW floats on the conv's input
// grid).
void count_saturations(const Node& conv, const Tensor& w, const Tensor& x, const Int8Conv& c,
                       const std::vector<SaturatingPair>& pairs, ConvPairs& out) {
  const ConvGeometry g = conv_geometry(conv, x.shape(), w.shape());
  std::vector<uint8_t> codes(static_cast<size_t>(x.numel()));
  const float* v = x.data<float>();
  for (size_t i = 0; i < codes.size(); ++i)
    codes[i] = static_cast<uint8_t>(std::clamp(
        static_cast<int32_t>(std::nearbyint(v[i] / c.in_scale)) + c.in_zero_point, 0, 255));
  out.saturated +=
      apply_pair_saturation(g, Layout::kPlain, codes.data(), c.in_zero_point, pairs, nullptr);
  out.evaluated += g.dst_dims[0] * g.dst_dims[2] * g.dst_dims[3] * int64_t(pairs.size());
}

std::string percent(double part, double whole) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return b;
}

}  // namespace

SaturationReport int8_pair_report(const Graph& qdq) {
  SaturationReport r;
  for (size_t i = 0; i < qdq.nodes.size(); ++i) {
    const auto c = int8_conv(qdq, i);
    if (!c) continue;
    const Tensor& w = qdq.initializers.at(c->weights);
    const PairCount ort = count_weight_pairs(w, PairOrder::kOnnxRuntime);
    const PairCount dnnl = count_weight_pairs(w, PairOrder::kOneDnn);
    r.convs.push_back({qdq.nodes[i].name, ort.pairs, ort.can_overflow, dnnl.can_overflow, 0, 0});
  }
  return r;
}

void measure_saturation(const Graph& qdq, const std::vector<std::map<std::string, Tensor>>& inputs,
                        SaturationReport& r) {
  if (r.convs.empty() || inputs.empty()) return;
  std::map<std::string, size_t> row_of;
  for (size_t k = 0; k < r.convs.size(); ++k) row_of[r.convs[k].node] = k;
  struct Watched {
    Int8Conv conv;
    std::vector<SaturatingPair> pairs;
  };
  std::map<std::string, std::vector<Watched>> by_input;  // conv input value -> its int8 convs
  for (size_t i = 0; i < qdq.nodes.size(); ++i) {
    const auto c = int8_conv(qdq, i);
    if (!c) continue;
    const Node& n = qdq.nodes[i];
    auto pairs = saturating_pairs(qdq.initializers.at(c->weights), n.attr_int("group", 1));
    if (!pairs.empty()) by_input[n.inputs[0]].push_back({*c, std::move(pairs)});
  }
  ExecutorOptions counting;
  Executor sim(qdq, counting);
  for (const auto& [value, convs] : by_input)
    sim.add_hook(value, [&, list = &convs](const std::string&, const Tensor& x) {
      for (const Watched& w : *list) {
        const Node& n = qdq.nodes[w.conv.node];
        count_saturations(n, qdq.initializers.at(w.conv.weights), x, w.conv, w.pairs,
                          r.convs[row_of.at(n.name)]);
      }
    });
  for (const auto& in : inputs) sim.run(in);
  r.images += static_cast<int64_t>(inputs.size());

  const std::optional<std::string> head = yolo_head_output(qdq);
  if (!head) return;
  ExecutorOptions exact_opt, emulated_opt;
  exact_opt.exec = emulated_opt.exec = ExecMode::kInt8;
  emulated_opt.emulate = Int8Emulation::kAvx2;
  Executor exact(qdq, exact_opt), emulated(qdq, emulated_opt);
  DetectionDiffAccumulator diff;
  std::optional<YoloLayout> layout;
  for (const auto& in : inputs) {
    const Tensor a = exact.run(in).at(*head), b = emulated.run(in).at(*head);
    if (!layout) layout = yolo_layout_for(qdq, a.shape());
    diff.add(decode_detections(a, PostprocessOptions{}, *layout),
             decode_detections(b, PostprocessOptions{}, *layout));
  }
  r.predicted = diff.result();
}

std::vector<Finding> saturation_findings(const SaturationReport& r, const TargetOps& target) {
  std::vector<Finding> out;
  if (target.int8_pairs.empty() || r.convs.empty()) return out;
  const bool flag = target.int8_pairs == "saturate";
  const Severity sev = flag ? Severity::kWarning : Severity::kInfo;
  int64_t convs = 0, ort = 0, dnnl = 0, pairs = 0, evaluated = 0, saturated = 0;
  for (const ConvPairs& c : r.convs) {
    pairs += c.pairs;
    evaluated += c.evaluated;
    saturated += c.saturated;
    if (c.overflow_ort == 0 && c.overflow_onednn == 0) continue;
    ++convs;
    ort += c.overflow_ort;
    dnnl += c.overflow_onednn;
    std::string msg = std::to_string(c.overflow_ort) + " of " + std::to_string(c.pairs) +
                      " weight pairs can overflow ONNX Runtime's int16 pairs (" +
                      percent(double(c.overflow_ort), double(c.pairs)) + "), " +
                      std::to_string(c.overflow_onednn) + " under oneDNN's pairing";
    if (r.images > 0)
      msg += "; on " + std::to_string(r.images) + " images " + std::to_string(c.saturated) +
             " of " + std::to_string(c.evaluated) + " such sums saturated (" +
             percent(double(c.saturated), double(c.evaluated)) + ")";
    out.push_back({sev,
                   "int8-saturation",
                   "",
                   c.node,
                   msg,
                   r.images > 0 ? double(c.saturated) : double(c.overflow_ort),
                   {{"pairs", double(c.pairs)},
                    {"overflow_ort", double(c.overflow_ort)},
                    {"overflow_onednn", double(c.overflow_onednn)},
                    {"evaluated", double(c.evaluated)},
                    {"saturated", double(c.saturated)}}});
  }
  const std::string cpus =
      "x86 CPUs without VNNI (Intel before Cascade Lake / Ice Lake, AMD before Zen 4) run ONNX "
      "Runtime's and oneDNN's int8 convolutions on u8 x s8 products added two at a time into a "
      "saturating int16; with VNNI (or on ARM) the sums are exact";
  std::string msg;
  if (convs == 0) {
    msg =
        "no int8 Conv has a pair of weights that can overflow an int16 pair: the model computes "
        "the same with and without VNNI (" +
        cpus + ")";
  } else {
    msg = std::to_string(convs) + " of " + std::to_string(r.convs.size()) +
          " int8 convolutions have weight pairs that can overflow (" + std::to_string(ort) +
          " pairs under ONNX Runtime's pairing, " + std::to_string(dnnl) +
          " under oneDNN's): " + cpus;
    if (r.images > 0)
      msg += "; on " + std::to_string(r.images) + " images " + std::to_string(saturated) +
             " sums saturated";
    if (r.predicted) {
      char b[160];
      if (r.predicted->match_rate)
        std::snprintf(b, sizeof b,
                      "; emulating ONNX Runtime's AVX2 kernels keeps %.1f%% of the exact int8 "
                      "run's detections (box %.2f px, keypoints %.2f px)",
                      100.0 * *r.predicted->match_rate, r.predicted->box_px.mean,
                      r.predicted->kpt_px.mean);
      else
        std::snprintf(b, sizeof b,
                      "; neither the exact nor the emulated int8 run detected "
                      "anything, so no detections to compare");
      msg += b;
    }
    msg += flag ? "; fix: re-quantize with saturation-safe weight codes (quantize option "
                  "saturation_safe), or deploy on a CPU with VNNI"
                : "; a deployment CPU without VNNI wants saturation-safe weight codes (the "
                  "doctor's target cpu-avx2 shows the cost)";
  }
  std::map<std::string, double> numbers = {
      {"convs", double(r.convs.size())}, {"convs_overflowing", double(convs)},
      {"overflow_ort", double(ort)},     {"overflow_onednn", double(dnnl)},
      {"pairs", double(pairs)},          {"images", double(r.images)},
      {"evaluated", double(evaluated)},  {"saturated", double(saturated)}};
  if (r.predicted) {
    if (r.predicted->match_rate) numbers["predicted_match_rate"] = *r.predicted->match_rate;
    numbers["predicted_box_px"] = r.predicted->box_px.mean;
    numbers["predicted_kpt_px"] = r.predicted->kpt_px.mean;
  }
  out.push_back({convs > 0 ? sev : Severity::kInfo, "int8-saturation", "", "", msg, 1e18, numbers});
  return out;
}

}  // namespace edgeq
