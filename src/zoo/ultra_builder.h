// UltraBuilder: writes Graph nodes the way an Ultralytics ONNX export names them.
//
// Node names are "<scope>/<Op>" with "_k" appended for the k-th further op of that type in the
// same scope ("/model.23/Concat_4"); outputs are "<node>_output_<i>"; weights are named after
// the torch module path ("model.2.m.0.cv1.conv.weight"). BN is taken as already folded into
// the conv, and SiLU is written as Sigmoid + Mul, as the exporter does.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace edgeq::zoo {

// Where a module sits: its node-name scope and its weight-name prefix.
struct Scope {
  std::string path;   // "/model.6/m.0/m/m.0"
  std::string param;  // "model.6.m.0.m.0"

  // A named submodule: "/cv1", ".cv1".
  Scope child(const std::string& name) const { return {path + "/" + name, param + "." + name}; }
  // Element i of a ModuleList attribute: "/m.0", ".m.0".
  Scope item(const std::string& list, int i) const {
    std::string n = list + "." + std::to_string(i);
    return {path + "/" + n, param + "." + n};
  }
  // Element i of this scope, which is an nn.Sequential: "/cv3.0" -> "/cv3.0/cv3.0.1", ".1".
  Scope seq(int i) const;
  // A scope for a repeated call of the same module ("/model.9/m_1"); weights are not named.
  Scope call(const std::string& name) const { return {path + "/" + name, param}; }
};

// An activation: value name, channels and spatial size in the graph (N = 1, NCHW), and the
// same activation computed on the small calibration images (see zoo/probe.h).
struct Feat {
  std::string v;
  int64_t c = 0, h = 0, w = 0;
  Tensor probe;
};

// What a synthetic conv's output channels should look like on the calibration images: mean and
// standard deviation per channel. Weights are He-normal draws rescaled per output channel, and
// the bias set, so that the outputs hit these targets: what a trained conv with folded
// BatchNorm (gamma, beta) produces on data like its training data.
struct ConvTarget {
  std::vector<double> mean, std;
};

class UltraBuilder {
 public:
  UltraBuilder(Graph& g, uint64_t seed) : g_(g), seed_(seed) {}

  // Adds one node; returns its output value names.
  std::vector<std::string> add_node(const Scope& s, const std::string& op,
                                    std::vector<std::string> inputs, int n_outputs = 1,
                                    std::map<std::string, Attribute> attrs = {});
  std::string add_node1(const Scope& s, const std::string& op, std::vector<std::string> inputs,
                        std::map<std::string, Attribute> attrs = {}) {
    return add_node(s, op, std::move(inputs), 1, std::move(attrs))[0];
  }

  // A named initializer; adding the same name twice must give the same value.
  std::string constant(const std::string& name, const Tensor& t);
  std::string int64s(const std::string& name, const std::vector<int64_t>& v);
  std::string scalar(const std::string& name, float v);

  // nn.Conv2d in scope s: node "<s>/Conv", weights "<s.param>.weight" and ".bias".
  Feat conv2d(const Scope& s, const Feat& x, int64_t cout, int k, int stride, int groups,
              const ConvTarget& target);
  // Folded-BatchNorm targets for a Conv module's conv: beta ~ N(1, 0.5^2), gamma ~ e^N(-0.2,
  // 0.3^2).
  ConvTarget bn_target(const Scope& s, int64_t cout) const;
  // Ultralytics Conv module: nn.Conv2d in "<s>/conv" (BN folded), then SiLU in "<s>/act".
  Feat conv(const Scope& s, const Feat& x, int64_t cout, int k = 1, int stride = 1, int groups = 1,
            bool act = true);
  Feat silu(const Scope& s, const Feat& x);
  // Concat / Split along channels, Add of two same-shape tensors.
  Feat concat(const Scope& s, const std::vector<Feat>& xs);
  std::vector<Feat> split(const Scope& s, const Feat& x, const std::vector<int64_t>& sizes);
  Feat add(const Scope& s, const Feat& a, const Feat& b);

  Graph& graph() { return g_; }

  static Attribute attr(int64_t v);
  static Attribute attr(float v);
  static Attribute attr(const std::string& v);
  static Attribute attr(const std::vector<int64_t>& v);

 private:
  Graph& g_;
  uint64_t seed_;
  std::map<std::string, std::map<std::string, int>> op_counts_;  // scope -> op -> uses
};

}  // namespace edgeq::zoo
