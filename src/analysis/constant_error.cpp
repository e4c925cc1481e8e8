#include "analysis/constant_error.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <set>

#include "core/text_format.h"
#include "ir/constants.h"
#include "ir/op_traits.h"

namespace edgeq {
namespace {

constexpr double kExactPx = 1e-3;
constexpr int kCoarsestGrid = 12, kFinestGrid = -8;  // powers of two tried for intended values

// How a constant reaches the decode's pixel space.
struct Use {
  enum class Kind { kShift, kScale, kExpectation, kWeight };
  Kind kind = Kind::kShift;
  std::string node;
  const PixelMeaning* meaning = nullptr;  // the first value with a pixel meaning downstream
};

bool is_weight_op(const std::string& op) {
  return op == "Conv" || op == "ConvTranspose" || op == "Gemm" || op == "MatMul";
}

// Whether the node's data input comes from a Softmax, directly or through move-only ops.
bool reads_softmax(const Graph& g, const Node& n) {
  std::string v = n.inputs.at(0);
  for (int p = g.producer_of(v); p >= 0; p = g.producer_of(v)) {
    const Node& m = g.nodes[p];
    if (m.op_type == "Softmax") return true;
    if (!is_move_only(m.op_type) || !m.has_input(0)) return false;
    v = m.inputs[0];
  }
  return false;
}

// Breadth first through arithmetic, Concat and move-only ops.
const PixelMeaning* first_pixel_value(const Graph& g, const std::vector<std::string>& from,
                                      const std::map<std::string, PixelMeaning>& pixels) {
  std::deque<std::string> todo(from.begin(), from.end());
  std::set<std::string> seen;
  while (!todo.empty()) {
    std::string v = todo.front();
    todo.pop_front();
    if (!seen.insert(v).second) continue;
    auto px = pixels.find(v);
    if (px != pixels.end()) return &px->second;
    for (int c : g.consumers_of(v)) {
      const Node& n = g.nodes[c];
      if (op_traits(n).binary_arithmetic || n.op_type == "Concat" || is_move_only(n.op_type))
        todo.insert(todo.end(), n.outputs.begin(), n.outputs.end());
    }
  }
  return nullptr;
}

// The nodes that compute with the constant (through Concat and move-only ops) and how.
std::vector<Use> uses_of(const Graph& g, const std::string& constant,
                         const std::map<std::string, PixelMeaning>& pixels) {
  std::vector<Use> out;
  std::vector<std::string> todo = {constant};
  std::set<std::string> seen;
  while (!todo.empty()) {
    std::string v = todo.back();
    todo.pop_back();
    if (!seen.insert(v).second) continue;
    for (int c : g.consumers_of(v)) {
      const Node& n = g.nodes[c];
      const std::string& op = n.op_type;
      if (op == "Concat" || (is_move_only(op) && n.inputs.at(0) == v)) {
        todo.insert(todo.end(), n.outputs.begin(), n.outputs.end());
        continue;
      }
      Use u;
      u.node = n.name;
      if (op == "Add" || op == "Sub")
        u.kind = Use::Kind::kShift;
      else if (op == "Mul" || op == "Div")
        u.kind = Use::Kind::kScale;
      else if (is_weight_op(op) && n.has_input(1) && n.inputs[1] == v)
        u.kind = reads_softmax(g, n) ? Use::Kind::kExpectation : Use::Kind::kWeight;
      else
        continue;
      u.meaning = first_pixel_value(g, n.outputs, pixels);
      out.push_back(u);
    }
  }
  return out;
}

// The coarsest power-of-two grid coarser than `step` that every value lies within half a step of
// (and that keeps a value nonzero), or 0.
double intended_grid(const std::vector<float>& x, double step) {
  const double tolerance = 0.5 * step * (1 + 1e-3);
  for (int k = kCoarsestGrid; k >= kFinestGrid; --k) {
    double p = std::ldexp(1.0, k);
    if (p <= step) break;
    bool on_grid = true, nonzero = false;
    for (float v : x) {
      double t = std::nearbyint(v / p) * p;
      if (std::fabs(v - t) > tolerance) {
        on_grid = false;
        break;
      }
      nonzero |= t != 0;
    }
    if (on_grid && nonzero) return p;
  }
  return 0;
}

// Whether a nonzero value's code lies at an end of the storage type, as the largest (or most
// negative) value's does under an encoding from min / max.
bool reaches_type_end(const Encoding& e, const std::vector<float>& x) {
  const int64_t lowest = e.symmetric && e.is_signed ? -e.qmax() : e.qmin();
  for (float v : x) {
    int64_t q = e.quantize(v);
    if ((v > 0 && q == e.qmax()) || (v < 0 && q == lowest)) return true;
  }
  return false;
}

// What quantization did to one constant.
struct ConstantError {
  double max_abs = 0, max_rel = 0;
  float from = 0, to = 0;  // the element moved most: intended value -> quantized value
  size_t channel = 0;      // its channel
  double grid = 0;         // the intended values' grid, when inferred from a QDQ model
  bool bounded = false;    // intended values unknown: half a step bounds the error
  bool integer_grid = true;
};

ConstantError constant_error(const Tensor& t, const TensorEncoding& te, bool quantized) {
  ConstantError r;
  bool any_nonzero = false;
  for (size_t c = 0; c < te.channels.size(); ++c) {
    const Encoding& e = te.channels[c];
    std::vector<float> vals = channel_values(t, te.per_channel() ? te.axis : -1, c);
    std::vector<float> intended = vals, actual = vals;
    if (!quantized) {
      for (float& v : actual) v = e.fake_quant(v);
    } else if (double p = intended_grid(vals, e.scale)) {
      for (float& v : intended) v = static_cast<float>(std::nearbyint(v / p) * p);
      r.grid = r.grid == 0 ? p : std::min(r.grid, p);
    } else if (reaches_type_end(e, vals)) {
      r.bounded = true;
      r.integer_grid = false;
      float smallest = 0;
      for (float v : vals)
        if (v != 0 && (smallest == 0 || std::fabs(v) < smallest)) smallest = std::fabs(v);
      if (0.5 * e.scale > r.max_abs) r.max_abs = 0.5 * e.scale, r.channel = c;
      if (smallest > 0) r.max_rel = std::max(r.max_rel, 0.5 * e.scale / smallest);
      continue;
    } else {
      continue;  // the constant's own exact grid
    }
    for (size_t i = 0; i < vals.size(); ++i) {
      double d = std::fabs(double(actual[i]) - intended[i]);
      if (d > r.max_abs) r.max_abs = d, r.from = intended[i], r.to = actual[i], r.channel = c;
      if (intended[i] != 0) r.max_rel = std::max(r.max_rel, d / std::fabs(intended[i]));
      r.integer_grid &= std::nearbyint(intended[i]) == intended[i];
      any_nonzero |= intended[i] != 0;
    }
  }
  r.integer_grid &= any_nonzero;
  return r;
}

int largest_stride(const PixelMeaning& m) {
  return m.grid && !m.strides.empty() ? m.strides.back() : 1;
}

// The use that costs the most pixels, and how many (-1 when no use reaches pixel space).
std::pair<const Use*, double> worst_use(const std::vector<Use>& uses, const ConstantError& err,
                                        double input_size) {
  std::pair<const Use*, double> worst = {nullptr, -1};
  for (const Use& u : uses) {
    if (!u.meaning || u.kind == Use::Kind::kWeight) continue;
    double px = u.kind == Use::Kind::kScale ? err.max_rel * input_size
                                            : err.max_abs * largest_stride(*u.meaning);
    if (px > worst.second) worst = {&u, px};
  }
  return worst;
}

std::string cost_text(const Use& u, const ConstantError& err, double px, double input_size) {
  if (u.kind == Use::Kind::kScale)
    return "relative error " + format_number("%.3g", 100 * err.max_rel) + "% x " +
           format_number("%g", input_size) + " px input = " + format_number("%.3g", px) + " px";
  if (!u.meaning->grid) return format_number("%.3g", px) + " px";
  return format_number("%.3g", err.max_abs) + " grid units x stride " +
         std::to_string(largest_stride(*u.meaning)) + " = " + format_number("%.3g", px) + " px";
}

}  // namespace

std::vector<Finding> constant_findings(const Graph& view,
                                       const std::map<std::string, TensorEncoding>& params,
                                       bool view_is_quantized,
                                       const std::map<std::string, PixelMeaning>& pixels,
                                       double input_size) {
  std::vector<Finding> out;
  for (const auto& [name, te] : params) {
    if (te.is_float || te.channels.empty()) continue;
    // ORT names a quantized constant's DequantizeLinear output "<name>_DequantizeLinear_Output".
    std::string value = find_constant(view, name) ? name : name + "_DequantizeLinear_Output";
    const Tensor* t = find_constant(view, value);
    if (!t || t->dtype() != DType::kFloat32 || t->numel() == 0) continue;
    std::vector<Use> uses = uses_of(view, value, pixels);
    bool weight = std::any_of(uses.begin(), uses.end(), [](const Use& u) {
      return u.kind == Use::Kind::kWeight || u.kind == Use::Kind::kExpectation;
    });
    ConstantError err = constant_error(*t, te, view_is_quantized);
    auto [use, px] = worst_use(uses, err, input_size);
    bool integer_weight = weight && err.integer_grid && err.max_abs > 0;
    if (!(px >= kExactPx) && !integer_weight) continue;

    const Encoding& e = te.at(err.channel);
    Finding f;
    f.kind = "constant";
    f.value = name;
    f.node = use ? use->node : uses.empty() ? "" : uses.front().node;
    f.numbers = {{"max_abs_error", err.max_abs},
                 {"max_rel_error", err.max_rel},
                 {"bits", double(e.bitwidth)},
                 {"scale", e.scale},
                 {"grid", err.grid}};
    f.message = integer_weight ? "integer-grid weight not exact: " : "";
    f.message += e.describe();
    if (err.bounded)
      f.message += " is not exact: up to half a step (" + format_number("%.3g", err.max_abs) +
                   "; the exact values are unknown)";
    else
      f.message +=
          " moves " + format_number("%g", err.from) + " to " + format_number("%.6g", err.to) +
          (err.grid > 0 ? " (its values lie on a grid of " + format_number("%g", err.grid) + ")"
                        : "");
    if (use && px >= 0) {
      f.numbers["error_px"] = px;
      if (use->meaning->grid) f.numbers["stride"] = largest_stride(*use->meaning);
      f.message += "; " + cost_text(*use, err, px, input_size);
      f.severity = px >= 2 ? Severity::kError : px >= 0.5 ? Severity::kWarning : Severity::kInfo;
      f.score = px;
    } else {
      f.message += "; its cost in pixels is unknown";
      f.severity = Severity::kWarning;
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace edgeq
