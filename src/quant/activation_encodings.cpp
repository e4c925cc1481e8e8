#include "quant/activation_encodings.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>

#include "calib/range_scheme.h"
#include "core/error.h"
#include "ir/silu.h"
#include "quant/silu_gate.h"

namespace edgeq {
namespace {

std::set<std::string> value_names(const Graph& g) {
  std::set<std::string> names;
  for (const ValueInfo& v : g.inputs) names.insert(v.name);
  for (const auto& kv : g.initializers) names.insert(kv.first);
  for (const Node& n : g.nodes)
    for (const std::string& o : n.outputs) names.insert(o);
  return names;
}

}  // namespace

std::map<std::string, TensorEncoding> activation_encodings(const Graph& g, const QuantPlan& plan,
                                                           const Stats& stats,
                                                           const QuantConfig& config,
                                                           std::vector<std::string>* warnings) {
  std::set<std::string> names = value_names(g);
  for (const auto& kv : config.overrides) {
    EDGEQ_CHECK(names.count(kv.first), "overrides: tensor '", kv.first,
                "' is not a value of the model");
    EDGEQ_CHECK(plan.is_quantized(kv.first) || kv.second.is_float, "overrides: tensor '", kv.first,
                "' has no encoding under placement ", edgeq::name(config.placement),
                " (it is not an input or output of a quantized op)");
  }
  for (const std::string& v : config.a16) {
    EDGEQ_CHECK(names.count(v), "16-bit list: '", v, "' is not a value of the model");
    EDGEQ_CHECK(plan.is_quantized(v), "16-bit list: '", v, "' has no encoding under placement ",
                edgeq::name(config.placement));
  }
  std::unique_ptr<RangeScheme> scheme = make_range_scheme(config.range, config.percentile);
  const std::set<std::string> silu = silu_values(g);

  // Groups of SiLU inputs only (quant/silu_gate.h) are encoded after the gates they need.
  const std::map<std::string, std::string> gates = silu_gates(g);
  auto gated = [&](const std::vector<std::string>& members) {
    for (const std::string& v : members)
      if (!gates.count(v)) return false;
    return true;
  };
  std::map<std::string, TensorEncoding> out;
  std::map<std::string, double> floors;  // silu_gate_floors, once the gates are encoded
  // The x below which every member's gate is closed; nullopt unless each has a floor.
  auto gate_floor = [&](const std::vector<std::string>& members) -> std::optional<double> {
    std::optional<double> floor;
    for (const std::string& v : members) {
      auto f = floors.find(v);
      if (f == floors.end()) return std::nullopt;
      floor = floor ? std::min(*floor, f->second) : f->second;
    }
    return floor;
  };
  auto encode = [&](const std::vector<std::string>& members) {
    Histogram merged;
    int bits = config.activation_bits;
    const TensorOverride* ov = nullptr;
    std::string ov_name;
    for (const std::string& v : members) {
      const Histogram& h = stats.at(v);
      EDGEQ_CHECK(h.nan_count() == 0 && h.inf_count() == 0, "value '", v, "' held ", h.nan_count(),
                  " NaN and ", h.inf_count(),
                  " infinite values during calibration; refusing to quantize it");
      merged.merge(h);
      if (config.a16.count(v)) bits = 16;
      auto it = config.overrides.find(v);
      if (it != config.overrides.end()) {
        EDGEQ_CHECK(!ov, "overrides: tensors '", ov_name, "' and '", v,
                    "' share one encoding; override only one of them");
        ov = &it->second;
        ov_name = v;
      }
    }
    TensorEncoding te;
    if (ov && ov->is_float) {
      te = TensorEncoding::floating(32);
    } else {
      bool sym = config.activation_symmetric;
      if (ov && ov->bitwidth) bits = *ov->bitwidth;
      if (ov && ov->symmetric) sym = *ov->symmetric;
      Range r;
      if (ov && ov->min) {
        r = {*ov->min, *ov->max};
      } else {
        r = scheme->compute(merged, {bits, sym});
        // SiLU inputs: the range starts where their gates close, if it reaches below.
        const std::optional<double> floor = gate_floor(members);
        if (floor && r.lo < *floor && r.hi > *floor) r.lo = *floor;
      }
      // SiLU values that reach its minimum: a grid point on it (ir/silu.h).
      bool on_silu = !sym && !(ov && ov->min) && r.hi > 0 && merged.min() <= 0.5 * silu_min();
      for (const std::string& v : members) on_silu = on_silu && silu.count(v);
      std::optional<Encoding> e;
      if (on_silu) e = encoding_with_grid_point(silu_min(), r.hi, bits);
      if (!e && range_below_float_step(r.lo, r.hi, bits, sym, sym)) {
        std::ostringstream what;
        what << "value '" << members[0] << "'"
             << (members.size() > 1 ? " (and the values sharing its encoding)" : "") << ": range ["
             << r.lo << ", " << r.hi << "] is narrower than " << bits
             << "-bit codes can step in float32 (a step below 1.2e-38)";
        EDGEQ_CHECK(!(ov && ov->min), "overrides: ", what.str(),
                    "; give [0, 0] for a value that is always 0, or a wider range");
        if (warnings)
          warnings->push_back(what.str() +
                              " in calibration: encoded with scale 1, its values quantize to 0");
      }
      te = TensorEncoding::per_tensor(e ? *e : encoding_from_range(r.lo, r.hi, bits, sym));
    }
    for (const std::string& v : members) out[v] = te;
  };
  for (const auto& [first, members] : plan.groups)
    if (!gated(members)) encode(members);
  floors = silu_gate_floors(g, out);
  for (const auto& [first, members] : plan.groups)
    if (gated(members)) encode(members);
  return out;
}

}  // namespace edgeq
