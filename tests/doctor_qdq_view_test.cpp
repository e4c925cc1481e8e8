// doctor on a third-party QDQ model written in ONNX Runtime's naming (graph input -> Q -> DQ ->
// "x_DequantizeLinear_Output"; a graph output's producer writes "r_QuantizeLinear_Input"):
// the float view gets the FP32 names back, encodings come from the Q/DQ parameters, a truncated
// encoding is found under the FP32 name, and patch re-encodes it by that name.
#include <gtest/gtest.h>

#include "analysis/doctor.h"
#include "analysis/qdq_patch.h"
#include "analysis/qdq_view.h"
#include "graph_builders.h"
#include "runtime/executor.h"

namespace edgeq {
namespace {

using test::node;

// x [1,8] -> Q/DQ (u8, [-1, 1]) -> Relu -> Q/DQ (u8, [0, 0.5]) -> r
Graph ort_style() {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 8}}};
  g.outputs = {{"r", DType::kFloat32, {1, 8}}};
  g.initializers["x_scale"] = Tensor::scalar<float>(2.0f / 255);
  g.initializers["x_zero_point"] = Tensor::scalar<uint8_t>(128);
  g.initializers["r_scale"] = Tensor::scalar<float>(0.5f / 255);
  g.initializers["r_zero_point"] = Tensor::scalar<uint8_t>(0);
  g.nodes.push_back(node("x_QuantizeLinear", "QuantizeLinear", {"x", "x_scale", "x_zero_point"},
                         {"x_QuantizeLinear_Output"}));
  g.nodes.push_back(node("x_DequantizeLinear", "DequantizeLinear",
                         {"x_QuantizeLinear_Output", "x_scale", "x_zero_point"},
                         {"x_DequantizeLinear_Output"}));
  g.nodes.push_back(
      node("relu", "Relu", {"x_DequantizeLinear_Output"}, {"r_QuantizeLinear_Input"}));
  g.nodes.push_back(node("r_QuantizeLinear", "QuantizeLinear",
                         {"r_QuantizeLinear_Input", "r_scale", "r_zero_point"},
                         {"r_QuantizeLinear_Output"}));
  g.nodes.push_back(node("r_DequantizeLinear", "DequantizeLinear",
                         {"r_QuantizeLinear_Output", "r_scale", "r_zero_point"}, {"r"}));
  return g;
}

TEST(DoctorQdqView, ThirdPartyNamesAndEncodings) {
  Graph q = ort_style();
  Graph view = strip_qdq(q);
  ASSERT_EQ(view.nodes.size(), 1u);
  EXPECT_EQ(view.nodes[0].inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(view.nodes[0].outputs, std::vector<std::string>{"r"});
  EXPECT_TRUE(view.initializers.empty());

  // FP32 statistics under the FP32 names: r reaches 1.0, its encoding stops at 0.5.
  Stats s;
  std::vector<float> x = {-1, -0.5f, 0, 0.25f, 0.5f, 0.75f, 0.9f, 1.0f};
  std::vector<float> r = {0, 0, 0, 0.25f, 0.5f, 0.75f, 0.9f, 1.0f};
  s.observe("x", Tensor::from_vector<float>({1, 8}, x));
  s.observe("r", Tensor::from_vector<float>({1, 8}, r));
  DoctorResult rep = run_doctor(q, nullptr, &s, load_target("qnn-htp"));
  EXPECT_EQ(rep.encodings_from, "model");
  EXPECT_EQ(rep.activation_encodings, 2u);
  const Finding* t = nullptr;
  for (const Finding& f : rep.findings)
    if (f.kind == "truncation") t = &f;
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->value, "r");
  EXPECT_NEAR(t->numbers.at("enc_max"), 0.5, 1e-6);
  EXPECT_NEAR(t->numbers.at("clipped_fraction"), 3.0 / 8.0, 0.05);  // 0.75, 0.9, 1.0
  EXPECT_EQ(t->severity, Severity::kError);
  for (const Finding& f : rep.findings)
    if (f.kind != "truncation") {
      EXPECT_EQ(f.severity, Severity::kInfo) << f.message;
    }

  // patch by the FP32 name; the fixed model passes r = 1.0 through.
  PatchResult p = patch_qdq(q, {{"r"}, 0.0, 1.0, std::nullopt});
  EXPECT_EQ(p.patched, std::vector<std::string>{"r"});
  EXPECT_EQ(p.graph.initializers.at("r_scale").data<float>()[0], 1.0f / 255);
  EXPECT_EQ(p.graph.initializers.at("x_scale").data<float>()[0], 2.0f / 255);
  Tensor out = Executor(p.graph).run({{"x", Tensor::from_vector<float>({1, 8}, x)}}).at("r");
  EXPECT_NEAR(out.data<float>()[7], 1.0f, 1.0f / 255);
  EXPECT_NEAR(out.data<float>()[5], 0.75f, 1.0f / 255);
}

}  // namespace
}  // namespace edgeq
