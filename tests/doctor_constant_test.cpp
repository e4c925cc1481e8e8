// doctor's constant check on the zoo yolo11n-pose: the W8A8 default (exact decode constants and
// DFL weights) has no constant finding; constants re-encoded by hand from their min / max (as
// before exact grids) are flagged with the pixels they cost, hand-computed:
//   strides 8/16/32 at uint8 [0, 32]: 8 -> 64 * 32/255, relative error 0.25 / 63.75 = 1/255 of a
//     position of up to 640 px: 2.51 px (error);
//   anchors 0.5..79.5 at uint8 [0, 79.5]: (2k+1)/2 / (79.5/255) = (2k+1) * 85/53 is at most 26/53
//     of a step from a code (k = 38), so 26/53 * 79.5/255 = 13/85 grid units x stride 32 =
//     4.89 px (error);
//   the DFL weights 0..15 at int8 scale 15/127: 1 -> 8 * 15/127, 7/127 grid units x stride 32 =
//     1.76 px (warning);
//   and a constant off every grid is bounded by half its step.
// A float model judged against an encodings file gets the same numbers from its own constants.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/doctor.h"
#include "encode/weight_encoding.h"
#include "graph_builders.h"
#include "ir/constants.h"
#include "quant/decode_tail.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

struct ZooPose {
  Graph fp32;
  Graph w8a8;  // quantized as `quantize --scheme w8a8` does by default
};

const ZooPose& zoo_pose() {
  static const ZooPose z = [] {
    ZooPose z;
    z.fp32 = build_yolo11("yolo11n-pose");
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> px(3 * 640 * 640);
    for (float& v : px) v = u(rng);
    Stats s = test::calibrate(z.fp32, "images", {Tensor::from_vector<float>({1, 3, 640, 640}, px)});
    QuantConfig c = config_for_scheme(Scheme::kW8A8);
    QuantPlan plan =
        plan_quantization(z.fp32, c, [&](const std::string& v) { return s.values.count(v) != 0; });
    mark_decode_tail(z.fp32, plan, true, c);
    z.w8a8 = test::export_qdq_model(z.fp32, s, c).graph;
    return z;
  }();
  return z;
}

const Tensor& fp32_constant(const std::string& name) {
  const Tensor* t = find_constant(zoo_pose().fp32, name);
  EXPECT_NE(t, nullptr) << name;
  return *t;
}

// Replaces what the DequantizeLinear writing `name` reads by `original` quantized under `te`
// (zero points 0).
void reencode(Graph& g, const std::string& name, const Tensor& original, const TensorEncoding& te) {
  int p = g.producer_of(name);
  ASSERT_GE(p, 0) << name;
  Node& dq = g.nodes[p];
  ASSERT_EQ(dq.op_type, "DequantizeLinear") << name;
  std::vector<float> scales;
  for (const Encoding& e : te.channels) {
    ASSERT_EQ(e.zero_point(), 0);
    scales.push_back(e.scale);
  }
  Shape shape = te.per_channel() ? Shape{static_cast<int64_t>(scales.size())} : Shape{};
  g.initializers[dq.inputs[0]] = quantize_tensor(original, te);
  g.initializers[dq.inputs[1]] = Tensor::from_vector<float>(shape, scales);
  g.initializers[dq.inputs[2]] = Tensor(te.channels[0].dtype(), shape);
}

std::vector<const Finding*> constant_findings_of(const DoctorResult& r) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings)
    if (f.kind == "constant") out.push_back(&f);
  return out;
}

const Finding* finding_for(const DoctorResult& r, const std::string& value) {
  for (const Finding* f : constant_findings_of(r))
    if (f->value == value) return f;
  return nullptr;
}

void expect_pixels(const DoctorResult& r, const std::string& value, double px, Severity severity) {
  const Finding* f = finding_for(r, value);
  ASSERT_NE(f, nullptr) << value << "\n" << format_doctor_report(r, 10);
  std::printf("%s\n", f->message.c_str());
  ASSERT_TRUE(f->numbers.count("error_px")) << f->message;
  EXPECT_NEAR(f->numbers.at("error_px"), px, 1e-3 * px) << f->message;
  EXPECT_EQ(f->severity, severity) << f->message;
}

const TensorEncoding kStridesFromRange =
    TensorEncoding::per_tensor(encoding_from_range(0, 32, 8, false));
const TensorEncoding kAnchorsFromRange =
    TensorEncoding::per_tensor(encoding_from_range(0, 79.5, 8, false));
const TensorEncoding kDflMaxAbs = {{encoding_from_range(-15, 15, 8, true)}, 0, false, 32};

}  // namespace

TEST(DoctorConstant, TheW8A8DefaultHasNoLossyConstant) {
  const ZooPose& z = zoo_pose();
  DoctorResult r = run_doctor(z.w8a8, nullptr, nullptr, load_target("cpu"));
  EXPECT_TRUE(constant_findings_of(r).empty()) << format_doctor_report(r, 50);
}

TEST(DoctorConstant, ConstantsFromTheirRangeCostPixels) {
  Graph g = zoo_pose().w8a8;
  reencode(g, "/model.23/strides", fp32_constant("/model.23/strides"), kStridesFromRange);
  reencode(g, "/model.23/anchors", fp32_constant("/model.23/anchors"), kAnchorsFromRange);
  reencode(g, "model.23.dfl.conv.weight", fp32_constant("model.23.dfl.conv.weight"), kDflMaxAbs);
  DoctorResult r = run_doctor(g, nullptr, nullptr, load_target("cpu"));
  expect_pixels(r, "/model.23/strides", 640.0 / 255, Severity::kError);
  expect_pixels(r, "/model.23/anchors", 13.0 / 85 * 32, Severity::kError);
  expect_pixels(r, "model.23.dfl.conv.weight", 7.0 / 127 * 32, Severity::kWarning);
  EXPECT_NE(finding_for(r, "model.23.dfl.conv.weight")->message.find("integer-grid weight"),
            std::string::npos);
  EXPECT_EQ(constant_findings_of(r).size(), 3u) << format_doctor_report(r, 50);
  // Most severe first, then the most pixels: the anchors (4.89 px) lead.
  EXPECT_EQ(constant_findings_of(r).front()->value, "/model.23/anchors");
}

TEST(DoctorConstant, AConstantOffEveryGridIsBoundedByHalfAStep) {
  // anchors_minus_half (0..79) moved off the integer grid by up to 0.3, then encoded from its
  // range: no grid explains the quantized values, the largest reaches code 255, so the error is
  // bounded by half a step: max / 255 / 2 grid units x stride 32.
  Tensor jittered = fp32_constant("/model.23/anchors_minus_half");
  float* x = jittered.data<float>();
  float hi = 0;
  for (int64_t i = 0; i < jittered.numel(); ++i) {
    x[i] += 0.3f * static_cast<float>(std::sin(0.7 * i));
    hi = std::max(hi, x[i]);
  }
  Graph g = zoo_pose().w8a8;
  reencode(g, "/model.23/anchors_minus_half", jittered,
           TensorEncoding::per_tensor(encoding_from_range(0, hi, 8, false)));
  DoctorResult r = run_doctor(g, nullptr, nullptr, load_target("cpu"));
  const float step = encoding_from_range(0, hi, 8, false).scale;
  expect_pixels(r, "/model.23/anchors_minus_half", 0.5 * step * 32, Severity::kError);
  EXPECT_NE(finding_for(r, "/model.23/anchors_minus_half")->message.find("unknown"),
            std::string::npos);
}

TEST(DoctorConstant, FloatModelJudgedAgainstAnEncodingsFile) {
  const ZooPose& z = zoo_pose();
  EncodingSet file;
  file.params["/model.23/strides"] = kStridesFromRange;
  file.params["model.23.dfl.conv.weight"] = kDflMaxAbs;
  file.params["/model.23/two"] = TensorEncoding::per_tensor(encoding_from_range(0, 2, 8, false));
  DoctorResult r = run_doctor(z.fp32, &file, nullptr, load_target("cpu"));
  expect_pixels(r, "/model.23/strides", 640.0 / 255, Severity::kError);
  expect_pixels(r, "model.23.dfl.conv.weight", 7.0 / 127 * 32, Severity::kWarning);
  // 2 at scale 2/255 is code 255 and comes back as 2 (within float rounding): not reported.
  EXPECT_EQ(finding_for(r, "/model.23/two"), nullptr) << format_doctor_report(r, 50);
}

}  // namespace edgeq
