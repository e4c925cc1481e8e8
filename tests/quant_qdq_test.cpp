// QDQ export on a small hand-built graph: placement and sharing, hand-computed weight / bias
// quantization, names kept, encodings read back, 16-bit forms, overrides and refusals; the
// written models run in edgeq's executor (checked exactly against a hand fake-quant reference)
// and in ONNX Runtime.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "encode/qdq_export.h"
#include "encode/qdq_import.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "quant/activation_encodings.h"
#include "quant/quantize_model.h"
#include "runtime/executor.h"
#include "test_util.h"

namespace edgeq {
namespace {

using test::int_attr;
using test::ints_attr;
using test::node;

// images [1,2,4,4] -> Conv 1x1 (w, b) -> c -> Sigmoid -> s; Mul(c, s) -> m -> MaxPool 2x2 -> p
// -> Reshape [1,3,4] -> r; Div(r, 2) -> d; Concat(r, d) -> out [1,6,4].
Graph small_graph() {
  Graph g;
  g.opsets = {{"", 17}};
  g.inputs = {{"images", DType::kFloat32, {1, 2, 4, 4}}};
  g.outputs = {{"out", DType::kFloat32, {1, 6, 4}}};
  g.initializers["w"] =
      Tensor::from_vector<float>({3, 2, 1, 1}, {0.5f, -0.125f, 1.0f, 0.75f, -2.0f, 0.1f});
  g.initializers["b"] = Tensor::from_vector<float>({3}, {0.1f, -0.2f, 0.3f});
  g.initializers["two"] = Tensor::scalar<float>(2.0f);
  g.initializers["shape"] = Tensor::from_vector<int64_t>({3}, {1, 3, 4});
  g.nodes.push_back(node("conv", "Conv", {"images", "w", "b"}, {"c"}));
  g.nodes.push_back(node("sig", "Sigmoid", {"c"}, {"s"}));
  g.nodes.push_back(node("mul", "Mul", {"c", "s"}, {"m"}));
  Node pool = node("pool", "MaxPool", {"m"}, {"p"});
  pool.attrs["kernel_shape"] = ints_attr({2, 2});
  pool.attrs["strides"] = ints_attr({2, 2});
  g.nodes.push_back(pool);
  g.nodes.push_back(node("reshape", "Reshape", {"p", "shape"}, {"r"}));
  g.nodes.push_back(node("div", "Div", {"r", "two"}, {"d"}));
  Node cat = node("cat", "Concat", {"r", "d"}, {"out"});
  cat.attrs["axis"] = int_attr(1);
  g.nodes.push_back(cat);
  return g;
}

std::vector<Tensor> inputs(int n, unsigned seed) {
  return test::uniform_inputs(n, seed, 0, 1);
}

Stats calibrate(const Graph& g, const std::vector<Tensor>& xs) {
  Stats s;
  s.model_sha256 = "test";
  Executor ex(g);
  ex.add_hook("*", [&](const std::string& v, const Tensor& t) { s.observe(v, t); });
  for (const Tensor& x : xs) {
    ex.run({{"images", x}});
    s.images++;
  }
  return s;
}

struct Quantized {
  QuantPlan plan;
  QdqModel model;
};

Quantized quantize(const Graph& g, const Stats& s, const QuantConfig& c) {
  Quantized q;
  q.plan = plan_quantization(g, c, [&](const std::string& v) { return s.values.count(v) != 0; });
  q.model = export_qdq(g, q.plan, activation_encodings(g, q.plan, s, c), c);
  return q;
}

const Node* producer(const Graph& g, const std::string& v) {
  int i = g.producer_of(v);
  return i < 0 ? nullptr : &g.nodes[i];
}

std::set<std::string> node_names(const Graph& g, const std::set<int>& idx) {
  std::set<std::string> out;
  for (int i : idx) out.insert(g.nodes[i].name);
  return out;
}

}  // namespace

TEST(QuantQdq, OrtPlacementAndSharing) {
  Graph g = small_graph();
  Stats s = calibrate(g, inputs(4, 1));
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  QuantPlan plan = plan_quantization(g, c, [&](const std::string& v) { return s.values.count(v); });
  // Div is not among ORT's quantized ops; its output still gets an encoding as a Concat input.
  EXPECT_EQ(node_names(g, plan.quantized_nodes),
            (std::set<std::string>{"conv", "sig", "mul", "pool", "reshape", "cat"}));
  EXPECT_EQ(plan.activations,
            (std::vector<std::string>{"images", "c", "s", "m", "p", "r", "d", "out"}));
  // MaxPool and Reshape share their input's encoding; Concat does not under ORT.
  EXPECT_EQ(plan.group_of.at("p"), "m");
  EXPECT_EQ(plan.group_of.at("r"), "m");
  EXPECT_EQ(plan.group_of.at("d"), "d");
  EXPECT_EQ(plan.group_of.at("out"), "out");
}

TEST(QuantQdq, QnnPlacementSharesConcat) {
  Graph g = small_graph();
  Stats s = calibrate(g, inputs(4, 1));
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.placement = Placement::kQnn;
  Quantized q = quantize(g, s, c);
  EXPECT_TRUE(q.plan.quantized_nodes.count(5));  // div
  for (const char* v : {"p", "r", "d", "out"}) EXPECT_EQ(q.plan.group_of.at(v), "m") << v;
  // One encoding over the union of the members' ranges.
  const auto& acts = q.model.encodings.activations;
  double lo = 0, hi = 0;
  for (const char* v : {"m", "p", "r", "d", "out"}) {
    lo = std::min<double>(lo, s.at(v).min());
    hi = std::max<double>(hi, s.at(v).max());
    EXPECT_EQ(acts.at(v).channels[0].scale, acts.at("m").channels[0].scale);
  }
  EXPECT_FLOAT_EQ(acts.at("out").channels[0].scale, static_cast<float>((hi - lo) / 255.0));
  // The Div constant 2.0 is quantized on its exact grid (encode/exact_encoding.h): scale 2, q = 1
  // in uint8 with zero point 0 (from its range [0, 2] it would be scale 2/255, q = 255).
  const Encoding& two = q.model.encodings.params.at("two").channels.at(0);
  EXPECT_EQ(two.scale, 2.0f);
  EXPECT_EQ(two.zero_point(), 0);
  EXPECT_EQ(two.dtype(), DType::kUInt8);
  EXPECT_EQ(q.model.graph.initializers.at("two_quantized").to_ints(), std::vector<int64_t>{1});
}

TEST(QuantQdq, WeightsBiasAndNamesW8A8) {
  Graph g = small_graph();
  std::vector<Tensor> xs = inputs(4, 2);
  Stats s = calibrate(g, xs);
  Quantized q = quantize(g, s, config_for_scheme(Scheme::kW8A8));
  const Graph& out = q.model.graph;

  // Weights, per output channel: max|w| / 127 (0.5/127, 1/127, 2/127) would move them
  // (-0.125 -> -32 * 0.5/127, 0.75 -> 95 * 1/127, 0.1 -> 6 * 2/127), and so would the tensor's
  // 2/127; each channel lies on an exact grid instead: (0.5, -0.125) on 0.125 -> [4, -1],
  // (1, 0.75) on 0.25 -> [4, 3], (-2, 0.1) on 0.1 (its smallest |w|) -> [-20, 1].
  EXPECT_EQ(out.initializers.count("w"), 0u);
  const Tensor& wq = out.initializers.at("w_quantized");
  EXPECT_EQ(wq.dtype(), DType::kInt8);
  EXPECT_EQ(wq.to_ints(), (std::vector<int64_t>{4, -1, 4, 3, -20, 1}));
  std::vector<float> ws = out.initializers.at("w_scale").to_floats();
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_EQ(ws[0], 0.125f);
  EXPECT_EQ(ws[1], 0.25f);
  EXPECT_EQ(ws[2], 0.1f);
  const Node* wdq = producer(out, "w");
  ASSERT_NE(wdq, nullptr);
  EXPECT_EQ(wdq->op_type, "DequantizeLinear");
  EXPECT_EQ(wdq->attr_int("axis", -9), 0);

  // Bias: int32, scale = s_images * s_w[c]; s_images = max(images) / 255 (min >= 0).
  float xmax = 0;
  for (const Tensor& x : xs)
    for (float v : x.to_floats()) xmax = std::max(xmax, v);
  float s_in = xmax / 255.0f;
  const Tensor& bq = out.initializers.at("b_quantized");
  EXPECT_EQ(bq.dtype(), DType::kInt32);
  std::vector<float> b = {0.1f, -0.2f, 0.3f};
  std::vector<float> bs = out.initializers.at("b_scale").to_floats();
  for (int ch = 0; ch < 3; ++ch) {
    EXPECT_NEAR(bs[ch], s_in * ws[ch], 1e-6 * bs[ch]);
    EXPECT_EQ(bq.to_ints()[ch], static_cast<int64_t>(std::nearbyint(b[ch] / bs[ch])));
  }

  // Activations: producers write "<v>_QuantizeLinear_Input", the DequantizeLinear writes <v>.
  ASSERT_EQ(out.outputs.size(), 1u);
  EXPECT_EQ(out.outputs[0].name, "out");
  EXPECT_EQ(producer(out, "out")->op_type, "DequantizeLinear");
  EXPECT_EQ(producer(out, "out_QuantizeLinear_Input")->name, "cat");
  EXPECT_EQ(producer(out, "c")->op_type, "DequantizeLinear");
  // The graph input is read through "images_DequantizeLinear_Output".
  EXPECT_EQ(producer(out, "images_DequantizeLinear_Output")->op_type, "DequantizeLinear");
  for (const Node& n : out.nodes)
    if (n.name == "conv") {
      EXPECT_EQ(n.inputs[0], "images_DequantizeLinear_Output");
    }
  // Div stays float (reads the dequantized r); the Div constant is not quantized under ORT.
  EXPECT_EQ(out.initializers.count("two"), 1u);
  EXPECT_EQ(out.opset(""), 17);

  // Encodings read back from the graph equal the ones written.
  EncodingSet back = encodings_from_qdq(out);
  EXPECT_EQ(back.activations.size(), q.model.encodings.activations.size());
  for (const auto& [name, te] : q.model.encodings.activations) {
    ASSERT_TRUE(back.activations.count(name)) << name;
    EXPECT_EQ(back.activations.at(name).channels[0].scale, te.channels[0].scale) << name;
    EXPECT_EQ(back.activations.at(name).channels[0].offset, te.channels[0].offset) << name;
  }
  for (const auto& [name, te] : q.model.encodings.params) {
    ASSERT_TRUE(back.params.count(name)) << name;
    EXPECT_EQ(back.params.at(name).axis, te.axis) << name;
    ASSERT_EQ(back.params.at(name).channels.size(), te.channels.size()) << name;
    for (size_t k = 0; k < te.channels.size(); ++k) {
      EXPECT_EQ(back.params.at(name).channels[k].scale, te.channels[k].scale) << name;
      EXPECT_EQ(back.params.at(name).channels[k].zero_point(), te.channels[k].zero_point());
    }
  }
}

TEST(QuantQdq, ExecutorMatchesHandFakeQuant) {
  // x -> Relu -> y: the QDQ model computes fq_y(relu(fq_x(x))) exactly.
  Graph g;
  g.opsets = {{"", 17}};
  g.inputs = {{"x", DType::kFloat32, {1, 64}}};
  g.outputs = {{"y", DType::kFloat32, {1, 64}}};
  g.nodes.push_back(node("relu", "Relu", {"x"}, {"y"}));
  std::vector<float> xv(64);
  for (int i = 0; i < 64; ++i) xv[i] = -1.0f + 0.05f * static_cast<float>(i);
  Tensor x = Tensor::from_vector<float>({1, 64}, xv);
  Stats s;
  s.observe("x", x);
  std::vector<float> yv(64);
  for (int i = 0; i < 64; ++i) yv[i] = std::max(0.0f, xv[i]);
  s.observe("y", Tensor::from_vector<float>({1, 64}, yv));
  Quantized q = quantize(g, s, config_for_scheme(Scheme::kW8A8));
  const Encoding& ex = q.model.encodings.activations.at("x").channels[0];
  const Encoding& ey = q.model.encodings.activations.at("y").channels[0];
  Executor run(q.model.graph);
  Tensor y = run.run({{"x", x}}).at("y");
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(y.data<float>()[i], ey.fake_quant(std::max(0.0f, ex.fake_quant(xv[i])))) << i;
}

TEST(QuantQdq, RunsInExecutorAndOnnxRuntime) {
  Graph g = small_graph();
  std::vector<Tensor> xs = inputs(6, 3);
  Stats s = calibrate(g, xs);
  Executor fp(g);
  std::string dir = test::temp_dir("quant_qdq");
  for (const char* scheme : {"w8a8", "w8a16"}) {
    for (Qdq16 form : {Qdq16::kAuto, Qdq16::kOpset21}) {
      QuantConfig c = config_for_scheme(parse<Scheme>(scheme));
      c.qdq16 = form;
      Quantized q = quantize(g, s, c);
      std::string path = dir + "/" + scheme + (form == Qdq16::kAuto ? "_auto" : "_21") + ".onnx";
      save_onnx(q.model.graph, path);
      Graph loaded = load_onnx(path);
      if (std::string(scheme) == "w8a16") {
        bool contrib = form == Qdq16::kAuto;
        EXPECT_EQ(loaded.opset(""), contrib ? 17 : 21);
        EXPECT_EQ(loaded.opset("com.microsoft"), contrib ? 1 : 0);
        for (const Node& n : loaded.nodes)
          if (n.op_type == "QuantizeLinear") {
            EXPECT_EQ(n.domain, contrib ? "com.microsoft" : "") << n.name;
          }
        EXPECT_EQ(loaded.initializers.at("out_zero_point").dtype(), DType::kUInt16);
      }
      Executor ex(loaded);
      const Encoding& eo = q.model.encodings.activations.at("out").channels[0];
      for (const Tensor& x : xs) {
        Tensor ours = ex.run({{"images", x}}).at("out");
        Tensor ref = fp.run({{"images", x}}).at("out");
        // Within a few output steps of the float model, plus the 8-bit weights' share (0.5% of
        // the output span; that is what dominates at 16-bit activations).
        EXPECT_LE(test::max_abs_diff(ours, ref), 4.0 * eo.scale + 0.005 * (eo.max - eo.min))
            << scheme;
      }
      if (const std::string why = test::ort_unavailable_reason(); !why.empty()) {
        std::printf("ORT comparison of %s skipped: %s\n", scheme, why.c_str());
        continue;
      }
      std::vector<std::map<std::string, Tensor>> feeds;
      for (const Tensor& x : xs) feeds.push_back({{"images", x}});
      auto ort = test::run_ort_many(path, feeds);
      double worst = 0;
      for (size_t k = 0; k < xs.size(); ++k)
        worst = std::max(worst, test::max_abs_diff(ex.run(feeds[k]).at("out"), ort[k].at("out")));
      std::printf("%s %s: max |edgeq - ORT| = %.3g (output step %.3g)\n", scheme,
                  form == Qdq16::kAuto ? "auto" : "opset21", worst, eo.scale);
      EXPECT_LE(worst, 1.01 * eo.scale) << path;  // at most one output step apart
    }
  }
}

TEST(QuantQdq, OverridesExclusionsAndRefusals) {
  Graph g = small_graph();
  Stats s = calibrate(g, inputs(4, 4));
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.overrides = parse_overrides(
      R"({"d": "float", "r": {"bitwidth": 16, "min": -1, "max": 5}, "two": "float"})", "ov");
  Quantized q = quantize(g, s, c);
  const auto& acts = q.model.encodings.activations;
  EXPECT_TRUE(acts.at("d").is_float);
  EXPECT_EQ(producer(q.model.graph, "d")->name, "div");  // no Q/DQ around d
  // The override of r applies to its whole group {m, p, r}: [-1, 5] at 16 bit.
  for (const char* v : {"m", "p", "r"}) {
    const Encoding& e = acts.at(v).channels[0];
    EXPECT_EQ(e.bitwidth, 16) << v;
    EXPECT_FLOAT_EQ(e.scale, 6.0f / 65535.0f) << v;
  }
  EXPECT_EQ(acts.at("c").channels[0].bitwidth, 8);

  // Excluding Sigmoid: it runs in float, but s stays encoded as an input of Mul.
  QuantConfig x = config_for_scheme(Scheme::kW8A8);
  x.exclude_nodes = {"sig"};
  Quantized qx = quantize(g, s, x);
  EXPECT_FALSE(qx.plan.quantized_nodes.count(1));
  EXPECT_TRUE(qx.plan.is_quantized("s"));

  auto error_of = [&](QuantConfig cfg) -> std::string {
    try {
      quantize(g, s, cfg);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  QuantConfig bad = config_for_scheme(Scheme::kW8A8);
  bad.overrides = parse_overrides(R"({"nope": {"bitwidth": 16}})", "ov");
  EXPECT_NE(error_of(bad).find("'nope'"), std::string::npos);
  bad.overrides = parse_overrides(R"({"shape": {"bitwidth": 16}})", "ov");
  EXPECT_NE(error_of(bad).find("no encoding"), std::string::npos);
  bad.overrides =
      parse_overrides(R"({"m": {"min": 0, "max": 1}, "r": {"min": 0, "max": 2}})", "ov");
  EXPECT_NE(error_of(bad).find("share one encoding"), std::string::npos);
  QuantConfig ex = config_for_scheme(Scheme::kW8A8);
  ex.exclude_nodes = {"no_such_node"};
  EXPECT_NE(error_of(ex).find("no_such_node"), std::string::npos);
  QuantConfig a16 = config_for_scheme(Scheme::kW8A8);
  a16.a16 = {"ghost"};
  EXPECT_NE(error_of(a16).find("ghost"), std::string::npos);

  // NaN seen in calibration: refused, naming the value.
  Stats nan = s;
  float v = NAN;
  nan.values.at("s").add(&v, 1);
  try {
    QuantConfig cfg = config_for_scheme(Scheme::kW8A8);
    QuantPlan plan =
        plan_quantization(g, cfg, [&](const std::string& n) { return nan.values.count(n); });
    activation_encodings(g, plan, nan, cfg);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'s'"), std::string::npos);
  }

  EXPECT_THROW(parse_overrides(R"({"a": {"bits": 16}})", "ov"), Error);
  EXPECT_THROW(parse_overrides(R"({"a": {"min": 1}})", "ov"), Error);
  EXPECT_THROW(parse_overrides(R"({"a": "int"})", "ov"), Error);
  // 2^32 + 8 and 8.0: not the integer 8 (the first wrapped to 8 when read as int).
  EXPECT_THROW(parse_overrides(R"({"a": {"bitwidth": 4294967304}})", "ov"), Error);
  EXPECT_THROW(parse_overrides(R"({"a": {"bitwidth": 8.0}})", "ov"), Error);
  EXPECT_EQ(parse_overrides(R"({"a": {"bitwidth": 16}})", "ov").at("a").bitwidth, 16);
  EXPECT_THROW(config_for_scheme(static_cast<Scheme>(9)), Error);  // a cast outside the names
}

TEST(QuantQdq, ConstantNodeSourcesAndOpsetUpgrade) {
  // The Div constant comes from a Constant node; under qnn it is quantized and the node dropped.
  Graph g = small_graph();
  g.initializers.erase("two");
  Node k = node("two_const", "Constant", {}, {"two"});
  Attribute t;
  t.kind = Attribute::Kind::kTensor;
  t.t = Tensor::scalar<float>(2.0f);
  k.attrs["value"] = t;
  g.nodes.insert(g.nodes.begin(), k);
  Stats s = calibrate(g, inputs(3, 5));
  QuantConfig c = config_for_scheme(Scheme::kW8A16);
  c.placement = Placement::kQnn;
  c.qdq16 = Qdq16::kOpset21;
  Quantized q = quantize(g, s, c);
  for (const Node& n : q.model.graph.nodes) EXPECT_NE(n.op_type, "Constant");
  EXPECT_EQ(producer(q.model.graph, "two")->op_type, "DequantizeLinear");
  EXPECT_EQ(q.model.graph.opset(""), 21);
  EXPECT_GE(q.model.graph.ir_version, 10);
  Executor ex(q.model.graph);
  Executor fp(g);
  Tensor x = inputs(1, 6)[0];
  EXPECT_LE(
      test::max_abs_diff(ex.run({{"images", x}}).at("out"), fp.run({{"images", x}}).at("out")),
      0.01);
}

// Issue 46: a range of [0, 1e-38] became scale 1 without a word (every value quantized to 0). An
// override that narrow is refused naming the value; a calibrated one is encoded and named in the
// warnings (QuantizedModel::warnings: the library's channel for them).
TEST(QuantQdq, RangesNarrowerThanAFloatStepAreNamed) {
  EXPECT_TRUE(range_below_float_step(0, 1e-38, 8, false, false));
  EXPECT_TRUE(range_below_float_step(-1e-38, 0, 16, true, true));
  EXPECT_FALSE(range_below_float_step(0, 0, 8, false, false));  // always 0: scale 1 is exact
  EXPECT_FALSE(range_below_float_step(0, 1e-30, 8, false, false));
  Graph g = small_graph();
  Stats s = calibrate(g, inputs(2, 4));
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.overrides = parse_overrides(R"({"s": {"min": 0, "max": 1e-38}})", "ov");
  try {
    quantize(g, s, c);
    ADD_FAILURE() << "a range of [0, 1e-38] was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("overrides: value 's'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[0, 1e-38] is narrower than 8-bit codes can step"),
              std::string::npos)
        << e.what();
  }
  Stats tiny = s;
  const float v[2] = {0.0f, 1e-38f};
  tiny.values.at("s") = Histogram();
  tiny.values.at("s").add(v, 2);
  const QuantConfig plain = config_for_scheme(Scheme::kW8A8);
  const QuantPlan plan =
      plan_quantization(g, plain, [&](const std::string& n) { return tiny.values.count(n) != 0; });
  const QdqModel q = quantize_model(g, plan, tiny, plain);
  ASSERT_EQ(q.warnings.size(), 1u);
  EXPECT_NE(q.warnings[0].find("value 's'"), std::string::npos) << q.warnings[0];
  EXPECT_NE(q.warnings[0].find("encoded with scale 1"), std::string::npos) << q.warnings[0];
  EXPECT_EQ(q.encodings.activations.at("s").channels.at(0).scale, 1.0f);
  EXPECT_TRUE(quantize_model(g, plan, s, plain).warnings.empty());
}

}  // namespace edgeq
