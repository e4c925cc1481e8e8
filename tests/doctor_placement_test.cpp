// Placement per target (analysis/placement_advice.h): the placement a QDQ model was made with is
// recognised from where its Q/DQ sit, and the doctor says what each target wants.
#include <gtest/gtest.h>

#include "analysis/placement_advice.h"
#include "quant/quantize_model.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {

struct Zoo {
  Graph fp32;
  Stats stats;
};

const Zoo& zoo() {
  static const Zoo z = [] {
    Zoo z;
    z.fp32 = build_yolo11("yolo11n-pose");
    Executor ex(z.fp32);
    ex.add_hook("*", [&](const std::string& v, const Tensor& t) { z.stats.observe(v, t); });
    Tensor x(DType::kFloat32, z.fp32.inputs[0].shape);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float((i * 7919) % 255) / 255.f;
    ex.run({{z.fp32.inputs[0].name, x}});
    z.stats.images = 1;
    return z;
  }();
  return z;
}

Graph quantized(Placement p) {
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.placement = p;
  QuantPlan plan = plan_for_stats(zoo().fp32, zoo().stats, c);
  return quantize_model(zoo().fp32, plan, zoo().stats, c).graph;
}

}  // namespace

TEST(PlacementAdvice, RecognisesEachPlacementAndAdvisesPerTarget) {
  EXPECT_EQ(guess_placement(zoo().fp32), std::nullopt);
  for (Placement p : {Placement::kOrt, Placement::kQnn, Placement::kCpu})
    EXPECT_EQ(guess_placement(quantized(p)), p) << name(p);
  const Graph ort = quantized(Placement::kOrt);
  Finding cpu = placement_advice(ort, load_target("cpu"));
  EXPECT_EQ(cpu.severity, Severity::kInfo) << cpu.message;
  Finding htp = placement_advice(ort, load_target("qnn-htp"));
  EXPECT_GT(htp.score, cpu.score);  // a mismatch sorts first
  EXPECT_NE(htp.message.find("wants Q/DQ placement 'qnn'"), std::string::npos) << htp.message;
  EXPECT_NE(htp.message.find("as placement 'ort' puts them"), std::string::npos) << htp.message;
  Finding ov = placement_advice(quantized(Placement::kCpu), load_target("openvino"));
  EXPECT_EQ(ov.severity, Severity::kInfo) << ov.message;
  EXPECT_NE(placement_advice(zoo().fp32, load_target("openvino")).message.find("float"),
            std::string::npos);
}

}  // namespace edgeq
