// The field's delivered defect on the real YOLO11n-pose: W8A16, then the vendor's shared
// encoding [-0.59, 40.69] at 16 bit on the box decode's Concat and the Div / Sub values feeding it
// (found by structure). doctor flags them as truncated and names the pin pixel (40.69 x 8 =
// 325.5 px), the model really pins there, and patching to [-0.6, 80.6] clears the findings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "analysis/doctor.h"
#include "analysis/qdq_patch.h"
#include "api/api_impl.h"
#include "calib/calibrator.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "edgeq/doctor.h"
#include "edgeq/quantize.h"
#include "encode/qdq_export.h"
#include "encode/qdq_import.h"
#include "ir/onnx_io.h"
#include "quant/activation_encodings.h"
#include "quant/silu_gate.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {

struct RealPose {
  Graph fp32;
  std::vector<Tensor> images;
  Stats stats;
};

const RealPose& real_pose() {
  static const RealPose s = [] {
    RealPose s;
    std::string path = test::real_model_path();
    s.fp32 = load_onnx(path);
    for (const auto& p : list_images(test::coco8_pose_dir() + "/images"))
      s.images.push_back(preprocess_image(read_image(p), 640, 640, nullptr));
    Calibrator cal(s.fp32, sha256_hex(read_file(path)),
                   "letterbox 640x640 pad 114, RGB, /255, NCHW");
    for (const Tensor& x : s.images) cal.add({{"images", x}});
    s.stats = cal.take();
    return s;
  }();
  return s;
}

Graph quantize(const RealPose& s, const std::string& scheme, Placement p, RangeMethod range) {
  QuantConfig c = config_for_scheme(parse<Scheme>(scheme));
  c.placement = p;
  c.range = range;
  QuantPlan plan = plan_quantization(
      s.fp32, c, [&](const std::string& v) { return s.stats.values.count(v) != 0; });
  return export_qdq(s.fp32, plan, activation_encodings(s.fp32, plan, s.stats, c), c).graph;
}

const Finding* truncation_of(const DoctorResult& r, const std::string& v) {
  for (const Finding& f : r.findings)
    if (f.kind == "truncation" && f.value == v) return &f;
  return nullptr;
}

void print_top(const DoctorResult& r, size_t n) {
  std::printf("%s", format_doctor_report(r, 3).substr(0, 200000).c_str());
  (void)n;
}

// Max of output0 row 0 (box centre x, px) over the stride-8 anchors (the first 80 x 80).
float max_cx_stride8(Executor& ex, const Tensor& image) {
  Tensor y = ex.run({{"images", image}}).at("output0");
  const float* cx = y.data<float>();
  return *std::max_element(cx, cx + 6400);
}

}  // namespace

TEST(DoctorRealModel, VendorBoxDecodeEncodingIsFlaggedAndFixed) {
  EDGEQ_REQUIRE_REAL_DATA();
  const RealPose& s = real_pose();
  auto decode = find_box_decode(s.fp32);
  ASSERT_TRUE(decode.has_value());
  std::printf("box decode: concat %s, centre %s, size %s, strides", decode->concat.c_str(),
              decode->centre.c_str(), decode->size.c_str());
  for (int st : decode->to_pixels.strides) std::printf(" %d", st);
  std::printf("\n");
  EXPECT_EQ(decode->to_pixels.strides, (std::vector<int>{8, 16, 32}));

  Graph w8a16 = quantize(s, "w8a16", Placement::kOrt, RangeMethod::kMinMax);
  TargetOps htp = load_target("qnn-htp");
  DoctorResult clean = run_doctor(w8a16, nullptr, &s.stats, htp);
  for (const std::string& v : {decode->concat, decode->centre, decode->size})
    EXPECT_EQ(truncation_of(clean, v), nullptr) << v;

  std::vector<std::string> values = {decode->centre, decode->size, decode->concat};
  PatchResult vendor = patch_qdq(w8a16, {values, -0.59, 40.69, 16});
  DoctorResult bad = run_doctor(vendor.graph, nullptr, &s.stats, htp);
  std::printf("--- W8A16 with the vendor's [-0.59, 40.69] on the box decode ---\n");
  print_top(bad, 12);
  for (const std::string& v : {decode->concat, decode->centre}) {
    const Finding* f = truncation_of(bad, v);
    ASSERT_NE(f, nullptr) << v;
    EXPECT_EQ(f->severity, Severity::kError) << v;
    EXPECT_NEAR(f->numbers.at("pin_px"), 325.5, 0.1) << v;
    EXPECT_EQ(f->numbers.at("pin_stride"), 8) << v;
    EXPECT_NE(f->message.find("stride 8 = 325.5 px"), std::string::npos) << f->message;
  }
  // The centre (up to ~80 grid units) loses the most; errors come first in the report.
  EXPECT_EQ(bad.findings.front().severity, Severity::kError);
  EXPECT_EQ(bad.findings.front().kind, "truncation");
  const Finding* size = truncation_of(bad, decode->size);
  std::printf("size (wh) %s\n", size ? size->message.c_str() : "not truncated by [-0.59, 40.69]");

  // The model really pins there: FP32 box centres reach ~636 px at stride 8, the vendor-encoded
  // model's stop at 40.69 x 8.
  Executor fp(s.fp32), pinned(vendor.graph);
  float fp_max = max_cx_stride8(fp, s.images[0]);
  float pin_max = max_cx_stride8(pinned, s.images[0]);
  std::printf("max stride-8 box centre x: FP32 %.1f px, vendor encoding %.2f px\n", fp_max,
              pin_max);
  EXPECT_GT(fp_max, 600);
  EXPECT_LE(pin_max, 325.6);
  EXPECT_GE(pin_max, 325.4);

  // The fix: re-encode the Concat to [-0.6, 80.6]; its Div and Sub share its encoding now and
  // come along.
  PatchResult fixed = patch_qdq(vendor.graph, {{decode->concat}, -0.6, 80.6, 16});
  std::set<std::string> patched(fixed.patched.begin(), fixed.patched.end());
  for (const std::string& v : values) EXPECT_TRUE(patched.count(v)) << v;
  DoctorResult good = run_doctor(fixed.graph, nullptr, &s.stats, htp);
  std::printf("--- after patch to [-0.6, 80.6] ---\n");
  print_top(good, 8);
  for (const std::string& v : values) EXPECT_EQ(truncation_of(good, v), nullptr) << v;
  Executor fixed_ex(fixed.graph);
  EXPECT_NEAR(max_cx_stride8(fixed_ex, s.images[0]), fp_max, 1.0);
}

}  // namespace edgeq

namespace edgeq {

// What edgeq's own placement qnn + range mse clips on this model. Checked value by value against
// a plain comparison of each encoding read back from the model with the observed FP32 range:
// doctor reports a truncation exactly where the observed min / max lie more than one step beyond
// the encoding. W8A16 clips nothing that matters (no error); W8A8 pins the box decode inside the
// image (printed, with the rest, for the record).
TEST(DoctorRealModel, QnnMseTruncations) {
  EDGEQ_REQUIRE_REAL_DATA();
  const RealPose& s = real_pose();
  auto decode = find_box_decode(s.fp32);
  ASSERT_TRUE(decode.has_value());
  for (const char* scheme : {"w8a16", "w8a8"}) {
    Graph q = quantize(s, scheme, Placement::kQnn, RangeMethod::kMse);
    DoctorResult r = run_doctor(q, nullptr, &s.stats, load_target("qnn-htp"));
    std::set<std::string> expected, flagged;
    const auto acts = encodings_from_qdq(q).activations;
    // Below where a SiLU's gate closes nothing is seen (quant/silu_gate.h).
    const std::map<std::string, double> unseen = silu_gate_floors(s.fp32, acts);
    for (const auto& [v, te] : acts) {
      const Encoding& e = te.channels.at(0);
      const Histogram& h = s.stats.at(v);
      const double lo = unseen.count(v) ? std::max(double(h.min()), unseen.at(v)) : h.min();
      if (h.max() > e.max + e.scale || lo < e.min - e.scale) expected.insert(v);
    }
    int errors = 0, shown = 0;
    std::printf("--- %s, placement qnn, range mse: truncations ---\n", scheme);
    for (const Finding& f : r.findings) {
      if (f.kind != "truncation") continue;
      flagged.insert(f.value);
      errors += f.severity == Severity::kError;
      if (shown++ < 12)
        std::printf("%s %s: %s\n", std::string(name(f.severity)).c_str(), f.value.c_str(),
                    f.message.c_str());
    }
    std::printf("%zu truncated values (%d errors)\n", flagged.size(), errors);
    EXPECT_EQ(flagged, expected) << scheme;
    const Finding* cat = truncation_of(r, decode->concat);
    std::printf("box decode concat: %s\n", cat ? cat->message.c_str() : "not truncated");
    if (std::string(scheme) == "w8a16") {
      EXPECT_EQ(errors, 0);
      EXPECT_EQ(cat, nullptr);
    } else {
      ASSERT_NE(cat, nullptr);
      EXPECT_EQ(cat->severity, Severity::kError);
      EXPECT_LT(cat->numbers.at("pin_px"), 640);
    }
  }
}

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

// "value @ node: message", as the report writes a finding after its "severity [kind] ".
std::string line_of(const DoctorFinding& x) {
  std::string s = x.value + (!x.value.empty() && !x.node.empty() ? " @ " : "") + x.node;
  return s + (s.empty() ? "" : ": ") + x.message;
}

}  // namespace

// The default report on the default W8A8 (edgeq::quantize's defaults, as `edgeq quantize`) for
// qnn-htp: a grouped summary a user reads in one screen. Each group's count is the number of
// findings of its severity and kind, the groups come most severe first, each lists its costliest
// findings first, and what it leaves out is counted; the float-tail error says what to change.
// With DoctorOptions::all, every finding is listed, one a line, as before.
TEST(DoctorRealModel, DefaultW8A8ForQnnHtpIsAGroupedSummary) {
  EDGEQ_REQUIRE_REAL_DATA();
  const RealPose& s = real_pose();
  const auto stats = std::make_shared<CalibrationStats>(make_stats(s.stats, "test"));
  const Model q = Model::from_bytes(
      quantize(Model::load(test::real_model_path()), *stats, QuantizeOptions{}).bytes(), "q");
  DoctorOptions o;
  o.target = "qnn-htp";
  o.stats = stats;
  const DoctorReport r = doctor(q, o);
  std::printf("%s", r.text.c_str());
  const std::vector<std::string> lines = lines_of(r.text);
  ASSERT_GE(r.findings.size(), 30u);                      // enough to need grouping
  EXPECT_LE(lines.size() + (r.hidden > 0 ? 1 : 0), 25u);  // + the program's line about --all

  using Key = std::pair<int, std::string>;  // (severity, kind)
  std::map<Key, std::vector<const DoctorFinding*>> of;
  for (const DoctorFinding& f : r.findings) of[{int(f.severity), f.kind}].push_back(&f);
  std::map<Key, size_t> counted;
  std::vector<Key> order;
  std::map<Key, std::vector<std::string>> listed;
  for (size_t i = 2; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.rfind("  ", 0) == 0) {
      ASSERT_FALSE(order.empty()) << l;
      listed[order.back()].push_back(l.substr(2));
      continue;
    }
    const size_t open = l.find(" ["), close = l.find("] ");
    ASSERT_NE(open, std::string::npos) << l;
    ASSERT_NE(close, std::string::npos) << l;
    const std::string sev = l.substr(0, open), kind = l.substr(open + 2, close - open - 2);
    const Key key{int(parse<Severity>(sev)), kind};
    ASSERT_EQ(counted.count(key), 0u) << "group listed twice: " << l;
    order.push_back(key);
    ASSERT_TRUE(of.count(key)) << l;
    size_t n = 1;
    if (of.at(key).size() > 1) {
      ASSERT_EQ(std::sscanf(l.c_str() + close + 2, "%zu findings", &n), 1) << l;
    } else {
      listed[key].push_back(l.substr(close + 2));
    }
    counted[key] = n;
  }
  // Every (severity, kind) is one group whose count is its findings'.
  ASSERT_EQ(counted.size(), of.size());
  for (const auto& [key, fs] : of) EXPECT_EQ(counted[key], fs.size()) << key.second;
  // Most severe groups first.
  for (size_t i = 1; i < order.size(); ++i)
    EXPECT_GE(order[i - 1].first, order[i].first) << order[i].second;
  // Each group lists its first findings in the report's order (costliest first), and the
  // findings it leaves out are what the text counts as not shown.
  size_t shown = 0;
  for (const auto& [key, items] : listed) {
    const auto& fs = of.at(key);
    ASSERT_LE(items.size(), fs.size());
    for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(items[i], line_of(*fs[i])) << key.second;
    if (items.size() < fs.size()) {
      EXPECT_NE(r.text.find(std::to_string(fs.size() - items.size()) + " more"), std::string::npos)
          << key.second;
    }
    shown += items.size();
  }
  EXPECT_EQ(shown + r.hidden, r.findings.size());
  EXPECT_GT(r.hidden, 0u);
  // Concat tails cost the share of values cut: the three listed cut the most.
  const auto& tails = of.at({int(Severity::kWarning), "concat-tail"});
  ASSERT_GT(tails.size(), 4u);
  for (size_t i = 1; i < tails.size(); ++i)
    EXPECT_GE(tails[i - 1]->numbers.at("cut_fraction"), tails[i]->numbers.at("cut_fraction"));
  EXPECT_EQ(listed.at({int(Severity::kWarning), "concat-tail"}).size(), 3u);

  // The error says what to change: the target's placement, or the decode off the graph.
  ASSERT_EQ(of.count({int(Severity::kError), "float-tail"}), 1u);
  const DoctorFinding& tail = *of.at({int(Severity::kError), "float-tail"}).front();
  EXPECT_NE(tail.message.find("to change: quantize with placement 'qnn'"), std::string::npos)
      << tail.message;
  EXPECT_EQ(lines.at(2).rfind("error [float-tail] ", 0), 0u) << lines.at(2);

  // All: every finding, one a line, most severe first; the data is the same.
  o.all = true;
  o.max_info = r.findings.size();
  const DoctorReport every = doctor(q, o);
  EXPECT_EQ(every.hidden, 0u);
  EXPECT_EQ(every.json, r.json);
  const std::vector<std::string> all_lines = lines_of(every.text);
  ASSERT_EQ(all_lines.size(), 2 + r.findings.size());
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const DoctorFinding& f = r.findings[i];
    EXPECT_EQ(all_lines[2 + i], std::string(name(f.severity)) + " [" + f.kind + "] " + line_of(f));
  }
}

}  // namespace edgeq
