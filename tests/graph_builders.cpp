#include "graph_builders.h"

#include <random>
#include <utility>

#include "calib/calibrator.h"
#include "encode/qdq_export.h"
#include "quant/activation_encodings.h"

namespace edgeq::test {

Node node(const std::string& name, const std::string& op, std::vector<std::string> in,
          std::vector<std::string> out) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

Attribute int_attr(int64_t v) {
  return Attribute::integer(v);
}

Attribute ints_attr(std::vector<int64_t> v) {
  return Attribute::integers(std::move(v));
}

Graph conv_sigmoid_reshape() {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 2, 4, 4}}};
  g.outputs = {{"y", DType::kFloat32, {1, 4, 16}}};
  g.initializers["w"] = Tensor::from_vector<float>({2, 2, 1, 1}, {0.5f, -1.0f, 2.0f, 0.25f});
  g.initializers["b"] = Tensor::from_vector<float>({2}, {0.1f, -0.3f});
  g.initializers["shape"] = Tensor::from_vector<int64_t>({3}, {1, 2, 16});
  g.initializers["two"] = Tensor::scalar<float>(2.0f);
  g.nodes.push_back(node("conv", "Conv", {"x", "w", "b"}, {"c"}));
  g.nodes.push_back(node("sig", "Sigmoid", {"c"}, {"s"}));
  g.nodes.push_back(node("reshape", "Reshape", {"s", "shape"}, {"r"}));
  return g;
}

std::vector<Tensor> uniform_inputs(int n, unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<Tensor> out;
  for (int k = 0; k < n; ++k) {
    std::vector<float> v(32);
    for (float& x : v) x = u(rng);
    out.push_back(Tensor::from_vector<float>({1, 2, 4, 4}, v));
  }
  return out;
}

Stats calibrate(const Graph& g, const std::string& input, const std::vector<Tensor>& xs) {
  Calibrator cal(g, "test", "random");
  for (const Tensor& x : xs) cal.add({{input, x}});
  return cal.take();
}

QdqExport export_qdq_model(const Graph& g, const Stats& s, const QuantConfig& c) {
  QuantPlan plan = plan_quantization(g, c, [&](const std::string& v) { return s.values.count(v); });
  return {export_qdq(g, plan, activation_encodings(g, plan, s, c), c).graph, plan};
}

PairedConv paired_conv_model(unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n01(0.f, 1.f);
  std::uniform_real_distribution<float> u01;
  const int64_t out = 16, in = 4;
  std::vector<float> wv(out * in * 9);
  for (float& v : wv) v = 0.2f * n01(rng);
  for (int64_t o = 0; o < out; ++o) wv[o * 36 + 4] = wv[o * 36 + 13] = 0.5f;  // channels 0, 1
  PairedConv p;
  Graph& g = p.graph;
  g.opsets = {{"", 17}};
  g.inputs = {{"x", DType::kFloat32, {1, in, 10, 10}}};
  g.outputs = {{"y", DType::kFloat32, {1, out, 10, 10}}};
  g.initializers["w"] = Tensor::from_vector<float>({out, in, 3, 3}, wv);
  Node conv = node("c", "Conv", {"x", "w"}, {"y"});
  conv.attrs["pads"] = ints_attr({1, 1, 1, 1});
  g.nodes.push_back(conv);
  for (int i = 0; i < 4; ++i) {
    std::vector<float> x(in * 100);
    for (float& v : x) v = 4.f * u01(rng);
    p.inputs.push_back(Tensor::from_vector<float>({1, in, 10, 10}, x));
  }
  return p;
}

}  // namespace edgeq::test
