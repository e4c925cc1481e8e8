#include "repair/cle.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "core/error.h"
#include "ir/op_traits.h"

namespace edgeq {
namespace {

bool is_output(const Graph& g, const std::string& v) {
  for (const ValueInfo& o : g.outputs)
    if (o.name == v) return true;
  return false;
}

// A float initializer of rank `rank` that only `reader` reads.
const Tensor* own_initializer(const Graph& g, const std::string& v, int rank, int reader) {
  auto it = g.initializers.find(v);
  if (it == g.initializers.end() || it->second.dtype() != DType::kFloat32 ||
      it->second.rank() != rank)
    return nullptr;
  const std::vector<int> readers = g.consumers_of(v);
  return readers.size() == 1 && readers[0] == reader ? &it->second : nullptr;
}

bool is_depthwise(const Graph& g, int i) {
  const Node& n = g.nodes[i];
  if (n.op_type != "Conv" || !n.domain.empty() || !n.has_input(1)) return false;
  const Tensor* w = own_initializer(g, n.inputs[1], 4, i);
  return w && n.attr_int("group", 1) > 1 && w->shape()[1] == 1 &&
         w->shape()[0] % n.attr_int("group", 1) == 0;
}

// Conv with its own float weight (and bias, when it has one): it can be rescaled per output
// channel.
bool is_rescalable_conv(const Graph& g, int i) {
  const Node& n = g.nodes[i];
  if (n.op_type != "Conv" || !n.domain.empty() || !n.has_input(1)) return false;
  if (!own_initializer(g, n.inputs[1], 4, i)) return false;
  return !n.has_input(2) || own_initializer(g, n.inputs[2], 1, i);
}

// "SiLU" for Mul(t, Sigmoid(t)), else the op type.
std::string op_name(const Graph& g, const Node& n) {
  if (n.op_type == "Mul" && n.inputs.size() == 2)
    for (int k = 0; k < 2; ++k) {
      int s = g.producer_of(n.inputs[k]);
      if (s >= 0 && g.nodes[s].op_type == "Sigmoid" && g.nodes[s].inputs.at(0) == n.inputs[1 - k])
        return "SiLU";
    }
  return n.op_type;
}

// max |w| of each output channel (row) of a [O, ...] weight.
std::vector<double> row_ranges(const Tensor& w) {
  const int64_t rows = w.shape()[0], k = w.numel() / rows;
  std::vector<double> r(static_cast<size_t>(rows), 0.0);
  for (int64_t o = 0; o < rows; ++o)
    for (int64_t i = 0; i < k; ++i)
      r[o] = std::max(r[o], static_cast<double>(std::fabs(w.data<float>()[o * k + i])));
  return r;
}

double spread(const std::vector<double>& r) {
  double lo = INFINITY, hi = 0;
  for (double v : r)
    if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  return hi > 0 ? hi / lo : 1.0;
}

}  // namespace

std::vector<EqualizationCandidate> find_equalization_pairs(const Graph& g) {
  std::vector<EqualizationCandidate> out;
  for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) {
    if (!is_depthwise(g, i)) continue;
    EqualizationCandidate c;
    c.second = g.nodes[i].name;
    std::string nonlinear;  // the first op between that does not commute with channel scales
    std::string shared;     // the first value between that something else reads too
    std::string stop = "a graph input";  // where the walk ended without a Conv
    // Walk back from the depthwise conv's input through single-input ops (and SiLU) to a Conv.
    std::string v = g.nodes[i].inputs[0];
    for (int reader = i;;) {
      c.between.insert(c.between.begin(), v);
      const std::vector<int> readers = g.consumers_of(v);
      if (shared.empty() && (readers.size() != 1 || readers[0] != reader || is_output(g, v)))
        shared = "'" + v + "' is also read elsewhere (" + std::to_string(readers.size()) +
                 " readers" + (is_output(g, v) ? ", a graph output" : "") + ")";
      const int p = g.producer_of(v);
      if (p < 0) break;
      const Node& n = g.nodes[p];
      if (n.op_type == "Conv") {
        c.first = n.name;
        if (!is_rescalable_conv(g, p)) shared = n.describe() + " has shared or computed weights";
        break;
      }
      const std::string op = op_name(g, n);
      if (nonlinear.empty() && !op_traits(n).commutes_with_channel_scale) nonlinear = op;
      std::string next;  // the op's one data input (a SiLU's t)
      if (op == "SiLU") {
        for (const std::string& in : n.inputs)
          if (g.producer_of(in) < 0 || g.nodes[g.producer_of(in)].op_type != "Sigmoid") next = in;
      } else if (data_input_indices(n).size() == 1 && n.has_input(0)) {
        next = n.inputs[0];
      }
      if (next.empty()) {
        stop = op;
        break;
      }
      reader = p;
      v = next;
    }
    if (c.first.empty())
      c.blocked = "no Conv before it (the walk back ends at " + stop + ")";
    else if (!nonlinear.empty())
      c.blocked = nonlinear + " between" +
                  (nonlinear == "SiLU" || nonlinear == "Sigmoid" || nonlinear == "Tanh"
                       ? ": not positively homogeneous"
                       : ": does not commute with per-channel scales");
    else
      c.blocked = shared;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<EqualizedPair> equalize_pairs(Graph& g,
                                          const std::vector<EqualizationCandidate>& candidates) {
  std::map<std::string, int> index;
  for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i) index[g.nodes[i].name] = i;
  std::vector<EqualizedPair> out;
  for (const EqualizationCandidate& c : candidates) {
    if (!c.applicable()) continue;
    const Node& first = g.nodes.at(index.at(c.first));
    const Node& second = g.nodes.at(index.at(c.second));
    Tensor& w1 = g.initializers.at(first.inputs[1]);
    Tensor& w2 = g.initializers.at(second.inputs[1]);
    Tensor* b1 = first.has_input(2) ? &g.initializers.at(first.inputs[2]) : nullptr;
    const int64_t channels = w1.shape()[0], per_channel = w2.shape()[0] / channels;
    EDGEQ_CHECK(second.attr_int("group", 1) == channels && (!b1 || b1->numel() == channels),
                "equalization: ", first.describe(), " does not feed ", second.describe(),
                " channel for channel");
    const std::vector<double> r1 = row_ranges(w1), r2_rows = row_ranges(w2);
    std::vector<double> r2(static_cast<size_t>(channels), 0.0);
    for (int64_t o = 0; o < w2.shape()[0]; ++o)
      r2[o / per_channel] = std::max(r2[o / per_channel], r2_rows[o]);
    EqualizedPair e{c.first, c.second, std::max(spread(r1), spread(r2)), 0};
    const int64_t k1 = w1.numel() / channels, k2 = w2.numel() / w2.shape()[0];
    for (int64_t ch = 0; ch < channels; ++ch) {
      if (!(r1[ch] > 0) || !(r2[ch] > 0)) continue;
      const double s = std::sqrt(r1[ch] / r2[ch]);
      float* a = w1.data<float>() + ch * k1;
      for (int64_t i = 0; i < k1; ++i) a[i] = static_cast<float>(a[i] / s);
      if (b1) b1->data<float>()[ch] = static_cast<float>(b1->data<float>()[ch] / s);
      float* b = w2.data<float>() + ch * per_channel * k2;
      for (int64_t i = 0; i < per_channel * k2; ++i) b[i] = static_cast<float>(b[i] * s);
    }
    std::vector<double> a1 = row_ranges(w1), a2_rows = row_ranges(w2), a2(r2.size(), 0.0);
    for (int64_t o = 0; o < w2.shape()[0]; ++o)
      a2[o / per_channel] = std::max(a2[o / per_channel], a2_rows[o]);
    e.spread_after = std::max(spread(a1), spread(a2));
    out.push_back(e);
  }
  return out;
}

std::string describe_equalization(const std::vector<EqualizationCandidate>& candidates) {
  std::map<std::string, int> reasons;
  int applicable = 0;
  for (const EqualizationCandidate& c : candidates) {
    if (c.applicable())
      ++applicable;
    else
      ++reasons[c.blocked.substr(0, c.blocked.find(" ("))];
  }
  std::ostringstream os;
  os << candidates.size() << " depthwise conv" << (candidates.size() == 1 ? "" : "s") << ", "
     << applicable << " equalizable";
  for (const auto& [why, n] : reasons) os << "; " << n << ": " << why;
  return os.str();
}

}  // namespace edgeq
