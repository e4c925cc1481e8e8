// quantize(): the recipe in one place. Option checks first (nothing runs on bad options), then
// configuration, plan with the decode tail, 16-bit values, the search, weight repair, encodings and
// export, and the decode-tail check.
#include "edgeq/quantize.h"

#include <algorithm>
#include <sstream>

#include "api/inert_options.h"
#include "api/quantize_steps.h"
#include "calib/range_scheme.h"
#include "core/comma_list.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/option_range.h"
#include "encode/encodings_json.h"
#include "encode/quantize_io.h"
#include "ir/onnx_io.h"
#include "quant/decode_tail.h"
#include "quant/quantize_model.h"
#include "repair/weight_repair.h"
#include "runtime/float_io.h"

namespace edgeq {
namespace {

bool a16_none(const QuantizeOptions& o) {
  return o.a16.size() == 1 && o.a16[0] == "none";
}

QuantConfig config_for(const QuantizeOptions& o) {
  QuantConfig c = config_for_scheme(o.scheme);
  c.range = o.range;
  if (o.range == RangeMethod::kPercentile)
    c.percentile = o.percentile != 0 ? o.percentile : QuantizeOptions::kDefaultPercentile;
  c.placement = o.placement;
  c.qdq16 = o.qdq16;
  c.per_channel_weights = !o.per_tensor_weights;
  c.activation_symmetric = o.symmetric_activations;
  c.saturation_safe = o.saturation_safe;
  c.reduce_range = o.reduce_range;
  c.exclude_nodes.insert(o.exclude.begin(), o.exclude.end());
  if (!o.overrides_file.empty())
    c.overrides = parse_overrides(read_json_file(o.overrides_file, kMaxTextBytes, o.overrides_file),
                                  o.overrides_file);
  return c;
}

// Pixel-space values at 8 bit: a step of several pixels, and a Concat that also carries the
// scores (output0) rounds them to 0.
void check_decode_tail(const std::set<std::string>& tail, detail::QuantizedModelImpl& out) {
  size_t tail8 = 0;
  std::string worst;
  float worst_step = 0;
  for (const std::string& v : tail) {
    auto it = out.q.encodings.activations.find(v);
    if (it == out.q.encodings.activations.end() || it->second.is_float) continue;
    const Encoding& e = it->second.channels.at(0);
    if (e.bitwidth > 8) continue;
    ++tail8;
    if (e.scale > worst_step) worst_step = e.scale, worst = v;
  }
  out.summary.decode_tail_values = tail.size();
  out.summary.decode_tail_8bit = tail8;
  if (!tail8) return;
  std::ostringstream w;
  w << tail8 << " value" << (tail8 == 1 ? "" : "s")
    << " of the YOLO head's pixel-space decode tail stay 8-bit (e.g. '" << worst << "', a step of "
    << worst_step
    << "): boxes lose pixels and scores sharing output0's encoding round to 0; keep the w8a8 "
       "default a16 'decode'";
  out.warnings.push_back(w.str());
}

}  // namespace

std::vector<InertOption> inert_quantize_options(const QuantizeOptions& o) {
  const QuantizeOptions d;
  const RepairOptions& r = o.repair;
  const bool gptq =
      r.gptq == RepairOptions::Gptq::kOn || (r.gptq == RepairOptions::Gptq::kSchemeDefault &&
                                             gptq_by_default(config_for_scheme(o.scheme)));
  const bool repair = o.images && (gptq || r.cle || r.bias_correction);
  const std::string no_repair =
      "weight repair (images, and gptq (the w8a16 default), cle or bias_correction)";
  std::vector<InertOption> inert;
  if (o.range != RangeMethod::kPercentile)
    inert.push_back({"percentile", "range percentile", o.percentile != d.percentile});
  if (o.search.percent == 0) inert.push_back({"auto_n", "auto", o.search.n != d.search.n});
  if (!repair) {
    inert.push_back({"repair_n", no_repair, r.n != d.repair.n});
    inert.push_back({"seed", no_repair, r.seed != d.repair.seed});
    inert.push_back({"repair_memory_mib", no_repair, r.memory_mib != d.repair.memory_mib});
  }
  return inert;
}

void validate(const QuantizeOptions& o) {
  // Every choice names one of its values (a value cast from a number may not): name() throws.
  (void)edgeq::name(o.scheme);
  (void)edgeq::name(o.range);
  (void)edgeq::name(o.placement);
  (void)edgeq::name(o.qdq16);
  (void)edgeq::name(o.quantize_io);
  const QuantConfig c = config_for_scheme(o.scheme);
  const bool none = a16_none(o);
  for (const std::string& n : o.a16)
    EDGEQ_CHECK(n != "none" || none, "a16: 'none' cannot be combined with other names");
  check_unique(o.a16, "a16");
  check_unique(o.mixed, "mixed");
  check_unique(o.exclude, "exclude");
  if (o.percentile != 0) check_option("percentile", o.percentile, ranges::kPercentile);
  check_option("threads", o.threads, ranges::threads());
  if (o.saturation_safe || o.reduce_range) {
    EDGEQ_CHECK(!(o.saturation_safe && o.reduce_range),
                "saturation_safe and reduce_range are two answers to one problem; choose one");
    EDGEQ_CHECK(c.activation_bits == 8 && c.weight_bits == 8,
                o.saturation_safe ? "saturation_safe" : "reduce_range", ": scheme ",
                edgeq::name(o.scheme),
                " has no u8 x s8 int16 pairs to protect (only w8a8's 8-bit activations run on "
                "them)");
  }
  const RepairOptions& r = o.repair;
  const bool repair_asked = r.cle || r.gptq == RepairOptions::Gptq::kOn || r.bias_correction;
  EDGEQ_CHECK(!repair_asked || o.images,
              r.cle                                ? "cle"
              : r.gptq == RepairOptions::Gptq::kOn ? "gptq"
                                                   : "bias_correction",
              " needs images (the calibration images its statistics come from)");
  check_option("repair_n", r.n, ranges::kImages);
  check_option("repair_memory_mib", r.memory_mib, ranges::kMemoryMib);
  check_option("auto_n", o.search.n, ranges::kImages);
  refuse_set(inert_quantize_options(o));
  if (o.search.percent != 0) {
    check_option("auto", o.search.percent, ranges::kBudgetPercent);
    EDGEQ_CHECK(c.activation_bits == 8, "the search chooses a W8A8 model's 16-bit values: scheme ",
                edgeq::name(o.scheme), " has none to choose");
    EDGEQ_CHECK(o.images != nullptr,
                "the search needs images (validation images the stats did "
                "not see)");
  }
}

QuantizedModel quantize(const Model& model, const CalibrationStats& calibration,
                        const QuantizeOptions& o) {
  validate(o);
  QuantConfig c = config_for(o);
  Graph g = impl_of(model).graph;  // weight repair may equalize it
  Stats stats = impl_of(calibration).stats;
  check_stats_for_model(stats, model.sha256(), impl_of(calibration).source, model.name());
  ProgressReporter progress(o.progress);
  auto out = std::make_shared<detail::QuantizedModelImpl>();
  out->scheme = o.scheme, out->quantize_io = o.quantize_io;

  // a16: unset, W8A8 keeps the decode tail at 16 bit when the model has one (a cut arm has none);
  // unless 'none', the outputs are assembled in float.
  const bool none = a16_none(o);
  const bool decode =
      o.a16.empty() ? c.activation_bits < 16 : std::count(o.a16.begin(), o.a16.end(), "decode") > 0;
  const auto [plan, tail] = plan_with_decode_tail(g, stats, !none, decode, c);
  for (const std::string& n : o.a16) {
    if (n == "decode")
      EDGEQ_CHECK(!tail.empty(), "a16 'decode': no YOLO box / keypoint decode found in '",
                  model.name(), "' (no Mul by per-anchor strides)");
    else if (n == "outputs")  // e.g. a raw head's (cut_model, arm head) at 16 bit on the NPU
      for (const ValueInfo& v : g.outputs) c.a16.insert(v.name);
    else if (!none)
      c.a16.insert(n);
  }
  c.a16.insert(o.mixed.begin(), o.mixed.end());
  out->search = auto_search_step(o, g, stats, c, progress);
  const auto repaired =
      repair_weights_step(o, g, plan, c, stats, model.sha256(), progress, out->repair);
  out->q = quantize_model(g, plan, stats, c, repaired);
  out->warnings.insert(out->warnings.end(), out->q.warnings.begin(), out->q.warnings.end());
  check_decode_tail(tail, *out);
  quantize_io(out->q, o.quantize_io, stats);
  for (const CodedValue& c : coded_io(out->q.graph))
    out->summary.io.push_back((c.input ? "input " : "output ") + c.name + ": " +
                              c.encoding.describe());

  const QuantSummary s = summarize_encodings(out->q.encodings);
  QuantizeSummary& sum = out->summary;
  sum.activations_8bit = s.act8;
  sum.activations_16bit = s.act16;
  sum.activations_other = s.act_other;
  sum.activations_float = s.act_float;
  sum.weights_per_channel = s.weights_per_channel;
  sum.params_per_tensor = s.params_per_tensor;
  sum.saturation_safe_codes = out->q.saturation_safe_codes;
  sum.saturation_safe_convs = out->q.saturation_safe_convs;
  sum.range = make_range_scheme(c.range, c.percentile)->name();
  sum.placement = c.placement;
  return detail::ApiAccess::make<QuantizedModel>(std::move(out));
}

void QuantizedModel::save(const std::string& path) const {
  save_onnx(impl_->q.graph, path);
}
void QuantizedModel::save_encodings(const std::string& path, const std::string& version) const {
  ::edgeq::save_encodings(impl_->q.encodings, path, version);
}
std::string QuantizedModel::bytes() const {
  return serialize_onnx(impl_->q.graph);
}
std::string QuantizedModel::encodings_json(const std::string& version) const {
  return encodings_to_json(impl_->q.encodings, version);
}
const QuantizeSummary& QuantizedModel::summary() const {
  return impl_->summary;
}
const RepairReport& QuantizedModel::repair() const {
  return impl_->repair;
}
const AutoSearchReport& QuantizedModel::search() const {
  return impl_->search;
}
const std::vector<std::string>& QuantizedModel::warnings() const {
  return impl_->warnings;
}

}  // namespace edgeq
