#include "analysis/doctor.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/constant_error.h"
#include "analysis/float_tails.h"
#include "analysis/io_findings.h"
#include "analysis/placement_advice.h"
#include "analysis/qdq_view.h"
#include "analysis/truncation.h"
#include "core/error.h"
#include "encode/qdq_import.h"
#include "quant/silu_gate.h"

namespace edgeq {
namespace {

std::set<std::string> value_names(const Graph& g) {
  std::set<std::string> names;
  for (const ValueInfo& v : g.inputs) names.insert(v.name);
  for (const Node& n : g.nodes) names.insert(n.outputs.begin(), n.outputs.end());
  return names;
}

double input_width(const Graph& g) {
  if (!g.inputs.empty() && !g.inputs[0].shape.empty() && g.inputs[0].shape.back() > 0)
    return static_cast<double>(g.inputs[0].shape.back());
  return 640;
}

int concat_bits(const std::map<std::string, TensorEncoding>& enc) {
  bool any = false;
  for (const auto& kv : enc) {
    if (kv.second.is_float || kv.second.channels.empty()) continue;
    any = true;
    if (kv.second.channels[0].bitwidth < 16) return 8;
  }
  return any ? 16 : 8;
}

}  // namespace

DoctorResult run_doctor(const Graph& model, const EncodingSet* encodings_file, const Stats* stats,
                        const TargetOps& target,
                        const std::vector<std::map<std::string, Tensor>>* images) {
  DoctorResult r;
  r.target = target.target;
  for (const Node& n : model.nodes) r.qdq |= is_qdq_op(n);
  Graph view = strip_qdq(model);

  // The Q/DQ of quantized I/O (quantize --quantize-io) are not activation encodings: io_findings
  // reports them.
  const EncodingSet own = r.qdq ? encodings_from_qdq(model) : EncodingSet{};
  std::map<std::string, TensorEncoding> acts;
  if (encodings_file) {
    std::set<std::string> names = value_names(view);
    for (const auto& kv : encodings_file->activations)
      EDGEQ_CHECK(names.count(kv.first), "encodings: activation '", kv.first,
                  "' is not a value of the model");
    acts = encodings_file->activations;
    r.encodings_from = "file";
  } else if (r.qdq) {
    acts = own.activations;
    r.encodings_from = "model";
  } else {
    r.encodings_from = "none";
  }
  for (const auto& kv : acts) r.activation_encodings += !kv.second.is_float;

  r.box_decode = find_box_decode(view);
  auto pixels = pixel_meanings(view);
  std::vector<Finding>& f = r.findings;
  if (r.box_decode) {
    const BoxDecode& b = *r.box_decode;
    std::string strides;
    for (int s : b.to_pixels.strides) strides += (strides.empty() ? "" : "/") + std::to_string(s);
    f.push_back({Severity::kInfo,
                 "head",
                 b.concat,
                 b.concat_node,
                 "box decode found by structure: Concat of centre '" + b.centre +
                     "' (Div) and "
                     "size '" +
                     b.size + "' (Sub), x strides " + strides + " -> '" + b.to_pixels.pixels + "'",
                 0,
                 {}});
  }

  if (stats) {
    r.has_stats = true;
    for (const auto& [name, h] : stats->values) r.ranges.push_back(value_range(name, h));
    auto add = [&](std::vector<Finding> more) {
      f.insert(f.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    };
    add(range_findings(*stats, pixels, acts));
    add(tap_block_findings(*stats));
    add(truncation_findings(acts, *stats, pixels, input_width(view), silu_gate_floors(view, acts)));
    int bits = concat_bits(acts);
    r.concats = concat_spans(view, *stats, bits);
    add(concat_findings(r.concats, target.shares_concat_encoding, bits));
    size_t missing = 0;
    for (const auto& kv : acts) missing += !stats->values.count(kv.first);
    if (missing)
      f.push_back({Severity::kWarning,
                   "stats",
                   "",
                   "",
                   std::to_string(missing) + " encoded values have no statistics (stats of "
                                             "another model?): truncation is not judged for them",
                   0,
                   {{"missing", double(missing)}}});
  } else {
    f.push_back({Severity::kInfo,
                 "stats",
                 "",
                 "",
                 "no calibration statistics: ranges, truncation and concat spans need "
                 "FP32 statistics (from calibration, or from images given to the doctor)",
                 0,
                 {}});
  }
  // A QDQ model's constants hold their quantized values; a float model's are judged against
  // the encodings file.
  auto constants = r.qdq ? constant_findings(view, own.params, true, pixels, input_width(view))
                   : encodings_file ? constant_findings(view, encodings_file->params, false, pixels,
                                                        input_width(view))
                                    : std::vector<Finding>{};
  f.insert(f.end(), constants.begin(), constants.end());
  auto tails = float_tail_findings(model, target);
  f.insert(f.end(), tails.begin(), tails.end());
  auto placement = op_support_findings(model, target);
  f.insert(f.end(), placement.begin(), placement.end());
  auto io = io_findings(model, target);
  f.insert(f.end(), io.begin(), io.end());
  f.push_back(placement_advice(model, target));
  if (r.qdq && !target.int8_pairs.empty()) {
    r.saturation = int8_pair_report(model);
    if (images) measure_saturation(model, *images, *r.saturation);
    auto pairs = saturation_findings(*r.saturation, target);
    f.insert(f.end(), pairs.begin(), pairs.end());
  }
  sort_findings(f);
  return r;
}

nlohmann::json doctor_report_to_json(const DoctorResult& r) {
  nlohmann::json j;
  j["target"] = r.target;
  j["qdq"] = r.qdq;
  j["encodings_from"] = r.encodings_from;
  j["activation_encodings"] = r.activation_encodings;
  j["has_stats"] = r.has_stats;
  size_t counts[3] = {0, 0, 0};
  for (const Finding& x : r.findings) counts[static_cast<int>(x.severity)]++;
  j["summary"] = {{"errors", counts[2]}, {"warnings", counts[1]}, {"info", counts[0]}};
  if (r.box_decode)
    j["box_decode"] = {{"concat", r.box_decode->concat},
                       {"centre", r.box_decode->centre},
                       {"size", r.box_decode->size},
                       {"pixels", r.box_decode->to_pixels.pixels},
                       {"strides", r.box_decode->to_pixels.strides}};
  nlohmann::json fs = nlohmann::json::array();
  for (const Finding& x : r.findings) fs.push_back(finding_to_json(x));
  j["findings"] = fs;
  nlohmann::json rs = nlohmann::json::array();
  for (const ValueRange& v : r.ranges)
    rs.push_back({{"value", v.value},
                  {"min", v.min},
                  {"max", v.max},
                  {"p0.01", v.p0001},
                  {"p99.99", v.p9999},
                  {"span", v.span},
                  {"step8", v.step8},
                  {"step16", v.step16},
                  {"count", v.count},
                  {"non_finite", v.non_finite}});
  j["ranges"] = rs;
  nlohmann::json cs = nlohmann::json::array();
  for (const ConcatSpan& c : r.concats)
    cs.push_back({{"node", c.node},
                  {"inputs", c.inputs},
                  {"spans", c.spans},
                  {"ratio", std::isfinite(c.ratio) ? nlohmann::json(c.ratio) : nullptr},
                  {"shared_mse_range", {c.shared_lo, c.shared_hi}},
                  {"cut_input", c.cut_input},
                  {"cut_fraction", c.cut_fraction}});
  j["concats"] = cs;
  if (r.saturation) {
    nlohmann::json convs = nlohmann::json::array();
    for (const ConvPairs& c : r.saturation->convs)
      convs.push_back({{"node", c.node},
                       {"pairs", c.pairs},
                       {"overflow_ort", c.overflow_ort},
                       {"overflow_onednn", c.overflow_onednn},
                       {"evaluated", c.evaluated},
                       {"saturated", c.saturated}});
    j["int8_pairs"] = {{"images", r.saturation->images}, {"convs", convs}};
    if (const auto& p = r.saturation->predicted)
      j["int8_pairs"]["predicted"] = {
          {"exact_detections", p->ref_count},
          {"emulated_detections", p->test_count},
          {"matched", p->matched},
          {"match_rate", p->match_rate ? nlohmann::json(*p->match_rate) : nlohmann::json()},
          {"box_px", p->box_px.mean},
          {"kpt_px", p->kpt_px.mean}};
  }
  return j;
}

namespace {

// "value @ node: message", as each finding's line reads after its "severity [kind] ".
std::string finding_line(const Finding& x) {
  std::string s = x.value;
  if (!x.value.empty() && !x.node.empty()) s += " @ ";
  s += x.node;
  return s + (s.empty() ? "" : ": ") + x.message;
}

// How a kind's findings are ordered by cost (their score), for the group's header; "" for kinds
// whose score is no cost (they keep the report's order).
std::string cost_order(const std::string& kind) {
  static const std::map<std::string, std::string> order = {
      {"truncation", "the worst clipped first"},
      {"concat-span", "the largest span ratio first"},
      {"concat-tail", "the largest share of values cut first"},
      {"constant", "the largest pixel error first"}};
  auto it = order.find(kind);
  return it == order.end() ? "" : it->second;
}

struct Group {
  Severity severity;
  std::string kind;
  std::vector<const Finding*> findings;  // costliest first (the report's order)
};

}  // namespace

DoctorText format_doctor_text(const DoctorResult& r, size_t max_info, bool all) {
  std::ostringstream os;
  size_t counts[3] = {0, 0, 0};
  for (const Finding& x : r.findings) counts[static_cast<int>(x.severity)]++;
  os << "doctor (target " << r.target << "): " << (r.qdq ? "QDQ model" : "float model") << ", "
     << r.activation_encodings << " activation encodings (from " << r.encodings_from << "), "
     << (r.has_stats ? std::to_string(r.ranges.size()) + " values with FP32 statistics"
                     : std::string("no statistics"))
     << "\n"
     << counts[2] << " errors, " << counts[1] << " warnings, " << counts[0] << " info\n";
  DoctorText out;
  if (all) {
    size_t shown_info = 0;
    for (const Finding& x : r.findings) {
      if (x.severity == Severity::kInfo && shown_info++ >= max_info) continue;
      os << name(x.severity) << " [" << x.kind << "] " << finding_line(x) << "\n";
    }
    if (shown_info > max_info) {
      out.hidden = shown_info - max_info;
      os << "... " << out.hidden << " more info findings (all of them in the JSON report)\n";
    }
    out.text = os.str();
    return out;
  }
  // Grouped by (severity, kind): the groups most severe first (within a severity, the group of
  // the costliest finding first), each group's costliest findings first.
  std::vector<Group> groups;
  for (const Finding& x : r.findings) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.severity == x.severity && g.kind == x.kind;
    });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{x.severity, x.kind, {}});
    it->findings.push_back(&x);
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const Group& a, const Group& b) { return a.severity > b.severity; });
  size_t info_left = max_info;
  for (const Group& g : groups) {
    const size_t n = g.findings.size();
    size_t shown = std::min<size_t>(n, g.severity == Severity::kInfo ? 1 : 3);
    if (n == shown + 1) shown = n;  // the last one costs no more lines than "1 more"
    if (g.severity == Severity::kInfo) {
      shown = std::min(shown, info_left);
      info_left -= shown;
    }
    out.hidden += n - shown;
    const std::string head = std::string(name(g.severity)) + " [" + g.kind + "] ";
    if (n == 1 && shown == 1) {
      os << head << finding_line(*g.findings[0]) << "\n";
      continue;
    }
    os << head << n << " findings";
    const std::string order = cost_order(g.kind);
    if (shown > 0 && !order.empty()) os << ", " << order;
    if (shown < n) os << " (" << n - shown << " more: show all findings to list them)";
    os << (shown > 0 ? ":" : "") << "\n";
    for (size_t i = 0; i < shown; ++i) os << "  " << finding_line(*g.findings[i]) << "\n";
  }
  out.text = os.str();
  return out;
}

std::string format_doctor_report(const DoctorResult& r, size_t max_info, bool all) {
  return format_doctor_text(r, max_info, all).text;
}

}  // namespace edgeq
