// doctor --target cpu-avx2 (analysis/int8_saturation.h): W8A8 files whose int8 convolutions have
// weight pairs that can overflow the int16 pairs of x86 int8 kernels without VNNI are flagged, a
// saturation-safe file is not; --target cpu explains without flagging; on images the counts agree
// with what the emulation of those kernels changes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/doctor.h"
#include "cli_util.h"
#include "core/file_io.h"
#include "graph_builders.h"
#include "runtime/executor.h"
#include "test_util.h"

namespace edgeq {
namespace {

struct Exported {
  Graph plain, safe;
  std::vector<std::map<std::string, Tensor>> inputs;
};

const Exported& exported() {
  static const Exported e = [] {
    const test::PairedConv m = test::paired_conv_model(3);
    const Stats stats = test::calibrate(m.graph, "x", m.inputs);
    QuantConfig c;
    Exported out;
    out.plain = test::export_qdq_model(m.graph, stats, c).graph;
    c.saturation_safe = true;
    out.safe = test::export_qdq_model(m.graph, stats, c).graph;
    for (const Tensor& x : m.inputs) out.inputs.push_back({{"x", x}});
    return out;
  }();
  return e;
}

size_t count(const DoctorResult& r, Severity s) {
  size_t n = 0;
  for (const Finding& f : r.findings) n += f.kind == "int8-saturation" && f.severity == s;
  return n;
}

TEST(DoctorInt8Pairs, FlagsPlainW8A8AndNotSaturationSafe) {
  const Exported& e = exported();
  const TargetOps avx2 = load_target("cpu-avx2"), cpu = load_target("cpu");
  const DoctorResult plain = run_doctor(e.plain, nullptr, nullptr, avx2);
  EXPECT_EQ(count(plain, Severity::kWarning), 2u);  // the conv, and the summary
  ASSERT_TRUE(plain.saturation);
  ASSERT_EQ(plain.saturation->convs.size(), 1u);
  EXPECT_GE(plain.saturation->convs[0].overflow_ort, 16);  // the planted pair, every channel
  const DoctorResult safe = run_doctor(e.safe, nullptr, nullptr, avx2);
  EXPECT_EQ(count(safe, Severity::kWarning), 0u);
  EXPECT_EQ(count(safe, Severity::kInfo), 1u);  // "no int8 Conv has a pair ..."
  const DoctorResult explained = run_doctor(e.plain, nullptr, nullptr, cpu);
  EXPECT_EQ(count(explained, Severity::kWarning), 0u);
  EXPECT_EQ(count(explained, Severity::kInfo), 2u);
  const DoctorResult npu = run_doctor(e.plain, nullptr, nullptr, load_target("qnn-htp"));
  EXPECT_FALSE(npu.saturation);
}

// On images: sums saturated in the plain file exactly where the emulation of ORT's AVX2 kernels
// departs from the exact int8 run; none in the safe file.
TEST(DoctorInt8Pairs, CountsSaturationsOnImages) {
  const Exported& e = exported();
  const TargetOps avx2 = load_target("cpu-avx2");
  const DoctorResult plain = run_doctor(e.plain, nullptr, nullptr, avx2, &e.inputs);
  ASSERT_TRUE(plain.saturation);
  const ConvPairs& c = plain.saturation->convs.at(0);
  EXPECT_EQ(plain.saturation->images, 4);
  EXPECT_EQ(c.evaluated, 4 * 100 * c.overflow_ort);  // 10x10 outputs per image
  EXPECT_GT(c.saturated, 0);
  EXPECT_LT(c.saturated, c.evaluated);
  EXPECT_FALSE(plain.saturation->predicted);  // no YOLO head to decode
  ExecutorOptions exact, emulated;
  exact.exec = emulated.exec = ExecMode::kInt8;
  emulated.emulate = Int8Emulation::kAvx2;
  Executor a(e.plain, exact), b(e.plain, emulated);
  EXPECT_GT(test::max_abs_diff(a.run(e.inputs[0]).at("y"), b.run(e.inputs[0]).at("y")), 0.0);
  const DoctorResult safe = run_doctor(e.safe, nullptr, nullptr, avx2, &e.inputs);
  EXPECT_EQ(safe.saturation->convs.at(0).saturated, 0);
  EXPECT_EQ(safe.saturation->convs.at(0).evaluated, 0);
}

// The real W8A8 file of tests/data/ort-avx2-int8 (ORT's outputs there lose 2.7 px to saturation):
// flagged, the first conv (RGB weights paired across taps) among the convs, JSON as data.
TEST(DoctorInt8Pairs, RealModelFlaggedThroughTheCli) {
  const std::string dir = test::temp_dir("doctor_pairs");
  const std::string model = test::source_dir() + "/tests/data/ort-avx2-int8/yolo11n-pose.w8a8.onnx";
  auto r =
      test::run_cli("doctor --model '" + model + "' --target cpu-avx2 --json '" + dir + "/d.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Grouped: the int8-saturation warnings, the summary and the worst convolutions listed.
  EXPECT_NE(r.out.find("warning [int8-saturation] "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  /model.0/conv/Conv: "), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/d.json"));
  ASSERT_TRUE(j.contains("int8_pairs"));
  int64_t flagged = 0;
  for (const auto& c : j["int8_pairs"]["convs"]) flagged += c["overflow_ort"].get<int64_t>() > 0;
  EXPECT_GT(flagged, 0);
  EXPECT_LT(flagged, static_cast<int64_t>(j["int8_pairs"]["convs"].size()));
}

}  // namespace
}  // namespace edgeq
