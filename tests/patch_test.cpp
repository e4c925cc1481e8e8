// patch: only the named values' Q/DQ parameters change (hand-computed new scale / zero point,
// every other initializer byte-identical, every node identical but for a 16-bit domain); a
// shared encoding is re-encoded as a group; bad names are clear errors; the result runs.
#include <gtest/gtest.h>

#include <cstring>

#include "analysis/qdq_patch.h"
#include "analysis/qdq_view.h"
#include "cli_util.h"
#include "core/error.h"
#include "encode/qdq_import.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "test_util.h"

namespace edgeq {
namespace {

using test::node;

// x [1,2,4,4] -> Conv 1x1 -> c -> Sigmoid -> s -> Reshape [1,2,16] -> r; Div(r, 2) -> d;
// Concat(r, d) -> y [1,4,16].
Graph model() {
  Graph g = test::conv_sigmoid_reshape();
  g.nodes.push_back(node("div", "Div", {"r", "two"}, {"d"}));
  Node cat = node("cat", "Concat", {"r", "d"}, {"y"});
  cat.attrs["axis"] = test::int_attr(1);
  g.nodes.push_back(cat);
  return g;
}

std::vector<Tensor> inputs() {
  return test::uniform_inputs(3, 5, -1, 1);
}

using Quantized = test::QdqExport;

Quantized quantize(Placement p) {
  Graph g = model();
  Stats s = test::calibrate(g, "x", inputs());
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.placement = p;
  return test::export_qdq_model(g, s, c);
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

const ActivationQdq& qdq_of(const std::vector<ActivationQdq>& all, const std::string& v) {
  for (const ActivationQdq& a : all)
    if (a.value == v) return a;
  throw Error("no Q/DQ for " + v);
}

TEST(Patch, OnlyTheNamedValueChanges) {
  Graph q = quantize(Placement::kOrt).graph;
  std::string dir = test::temp_dir("patch");
  save_onnx(q, dir + "/q.onnx");
  Graph before = load_onnx(dir + "/q.onnx");
  PatchResult res = patch_qdq(before, {{"d"}, 0.0, 5.0, 16});
  EXPECT_EQ(res.patched, std::vector<std::string>{"d"});
  EXPECT_TRUE(res.pulled_in.empty());
  save_onnx(res.graph, dir + "/p.onnx");
  Graph after = load_onnx(dir + "/p.onnx");

  // Hand-computed: [0, 5] at uint16: scale 5 / 65535, zero point 0.
  auto acts = find_activation_qdq(after);
  const ActivationQdq& d = qdq_of(acts, "d");
  const Tensor& scale = after.initializers.at(d.scale);
  const Tensor& zp = after.initializers.at(d.zero_point);
  EXPECT_EQ(scale.data<float>()[0], 5.0f / 65535.0f);
  EXPECT_EQ(zp.dtype(), DType::kUInt16);
  EXPECT_EQ(zp.data<uint16_t>()[0], 0);
  // 16 bit below opset 21: the com.microsoft Q/DQ, as qdq_export writes them.
  EXPECT_EQ(after.nodes[d.quantize].domain, "com.microsoft");
  for (int i : d.dequantize) EXPECT_EQ(after.nodes[i].domain, "com.microsoft");
  EXPECT_EQ(after.opset("com.microsoft"), 1);

  // Everything else is identical.
  ASSERT_EQ(after.initializers.size(), before.initializers.size());
  for (const auto& [name, t] : before.initializers) {
    if (name == d.scale || name == d.zero_point) continue;
    ASSERT_TRUE(after.initializers.count(name)) << name;
    EXPECT_TRUE(same_bytes(t, after.initializers.at(name))) << name;
  }
  ASSERT_EQ(after.nodes.size(), before.nodes.size());
  for (size_t i = 0; i < before.nodes.size(); ++i) {
    const Node &a = before.nodes[i], &b = after.nodes[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.op_type, b.op_type);
    EXPECT_EQ(a.inputs, b.inputs) << a.name;
    EXPECT_EQ(a.outputs, b.outputs) << a.name;
    bool patched = static_cast<int>(i) == d.quantize ||
                   std::count(d.dequantize.begin(), d.dequantize.end(), static_cast<int>(i));
    if (!patched) {
      EXPECT_EQ(a.domain, b.domain) << a.name;
    }
  }
  // Encodings read back: only d differs.
  EncodingSet eb = encodings_from_qdq(before), ea = encodings_from_qdq(after);
  for (const auto& [v, te] : eb.activations) {
    if (v == "d") continue;
    EXPECT_EQ(te.channels[0].scale, ea.activations.at(v).channels[0].scale) << v;
  }
  EXPECT_EQ(ea.activations.at("d").channels[0].bitwidth, 16);

  // The patched model runs, and d now passes through [0, 5] at 16 bit: d = r / 2 to within
  // one 16-bit step (5 / 65535).
  Executor ex(after);
  std::vector<float> r, dv;
  ex.add_hook("r", [&](const std::string&, const Tensor& t) { r = t.to_floats(); });
  ex.add_hook("d", [&](const std::string&, const Tensor& t) { dv = t.to_floats(); });
  ex.run({{"x", inputs()[0]}});
  ASSERT_EQ(r.size(), 32u);
  ASSERT_EQ(dv.size(), 32u);
  for (size_t i = 0; i < r.size(); ++i) EXPECT_NEAR(dv[i], r[i] / 2, 5.0 / 65535) << i;
}

TEST(Patch, SharedEncodingIsPatchedAsAGroup) {
  Quantized q = quantize(Placement::kQnn);
  // Under placement qnn the Concat shares one encoding across r, d and y, and the Reshape
  // shares s's: the planner's group of d is the reference.
  const auto& group = q.plan.groups.at(q.plan.group_of.at("d"));
  std::set<std::string> expected(group.begin(), group.end());
  ASSERT_GE(expected.size(), 3u);
  PatchResult res = patch_qdq(q.graph, {{"d"}, -1.0, 3.0, std::nullopt});
  EXPECT_EQ(std::set<std::string>(res.patched.begin(), res.patched.end()), expected);
  EXPECT_EQ(res.pulled_in.size(), expected.size() - 1);
  EXPECT_EQ(res.encoding.bitwidth, 8);  // kept
  Encoding want = encoding_from_range(-1.0, 3.0, 8, false);
  EncodingSet ea = encodings_from_qdq(res.graph);
  for (const auto& [v, te] : ea.activations) {
    const Encoding& e = te.channels[0];
    if (expected.count(v)) {
      EXPECT_EQ(e.scale, want.scale) << v;
      EXPECT_EQ(e.zero_point(), want.zero_point()) << v;
    } else {
      EXPECT_NE(e.scale, want.scale) << v;
    }
  }
}

TEST(Patch, SharedParameterConstantsStayShared) {
  Graph q = quantize(Placement::kOrt).graph;
  // Make d's Q/DQ read c's scale and zero point (one encoding for both, as some tools write).
  auto acts = find_activation_qdq(q);
  const ActivationQdq& c = qdq_of(acts, "c");
  const ActivationQdq& d = qdq_of(acts, "d");
  std::vector<int> nodes = d.dequantize;
  nodes.push_back(d.quantize);
  for (int i : nodes) {
    q.nodes[i].inputs[1] = c.scale;
    q.nodes[i].inputs[2] = c.zero_point;
  }
  PatchResult res = patch_qdq(q, {{"d"}, -2.0, 2.0, std::nullopt});
  EXPECT_EQ(std::set<std::string>(res.patched.begin(), res.patched.end()),
            (std::set<std::string>{"c", "d"}));
  ASSERT_EQ(res.pulled_in.size(), 1u);
  EXPECT_NE(res.pulled_in[0].find("same Q/DQ parameter"), std::string::npos) << res.pulled_in[0];
  EXPECT_EQ(res.graph.initializers.at(c.scale).data<float>()[0], 4.0f / 255.0f);
}

TEST(Patch, BadNamesAreClearErrors) {
  Graph q = quantize(Placement::kOrt).graph;
  auto msg = [&](const std::string& v) {
    try {
      patch_qdq(q, {{v}, 0.0, 1.0, std::nullopt});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("nope").find("'nope' is not a value of the model"), std::string::npos);
  EXPECT_NE(msg("w").find("'w' is a quantized constant"), std::string::npos) << msg("w");
  EXPECT_THROW(patch_qdq(q, {{"d"}, 1.0, 1.0, std::nullopt}), Error);
  EXPECT_THROW(patch_qdq(q, {{"d"}, 0.0, 1.0, 12}), Error);
  // A value left in float: exclude the Div.
  Graph g = model();
  Stats s = test::calibrate(g, "x", inputs());
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.exclude_nodes = {"div", "cat"};
  Graph partial = test::export_qdq_model(g, s, c).graph;
  try {
    patch_qdq(partial, {{"d"}, 0.0, 1.0, std::nullopt});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("runs in float"), std::string::npos) << e.what();
  }
}

TEST(Patch, CliWritesThePatchedModel) {
  Graph q = quantize(Placement::kOrt).graph;
  std::string dir = test::temp_dir("patch_cli");
  save_onnx(q, dir + "/q.onnx");
  test::CliResult r =
      test::run_cli("patch --model " + dir +
                    "/q.onnx --tensor d,c --range -0.59 40.69 --bits 16 --out " + dir + "/p.onnx");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 values re-encoded"), std::string::npos) << r.out;
  EncodingSet e = encodings_from_qdq(load_onnx(dir + "/p.onnx"));
  Encoding want = encoding_from_range(-0.59, 40.69, 16, false);
  EXPECT_EQ(e.activations.at("d").channels[0].scale, want.scale);
  EXPECT_EQ(e.activations.at("c").channels[0].zero_point(), want.zero_point());
  r = test::run_cli("patch --model " + dir + "/q.onnx --tensor nope --range 0 1 --out " + dir +
                    "/x.onnx");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("'nope' is not a value of the model"), std::string::npos) << r.err;
}

TEST(Patch, OnnxRuntimeRunsThePatchedModel) {
  EDGEQ_REQUIRE_ORT();
  Graph q = quantize(Placement::kOrt).graph;
  std::string dir = test::temp_dir("patch_ort");
  save_onnx(patch_qdq(q, {{"d"}, 0.0, 5.0, 16}).graph, dir + "/p.onnx");
  Tensor x = inputs()[1];
  Tensor ours = Executor(load_onnx(dir + "/p.onnx")).run({{"x", x}}).at("y");
  Tensor ort = test::run_ort(dir + "/p.onnx", {{"x", x}}).at("y");
  EXPECT_LE(test::max_abs_diff(ours, ort), 1e-5);
}

}  // namespace
}  // namespace edgeq
