// edgeq quantize: FP32 model + calibration stats -> QDQ ONNX (and optionally encodings JSON).
// Every flag maps onto QuantConfig (quant/quant_config.h), weight repair flags onto RepairOptions
// (cli/repair_options.h); nothing is written unless every step succeeded.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "analysis/decode_tail.h"
#include "analysis/mixed_set.h"
#include "cli/commands.h"
#include "cli/ledger_options.h"
#include "cli/quantize_auto.h"
#include "cli/repair_options.h"
#include "core/comma_list.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "ir/onnx_io.h"
#include "quant/encodings_json.h"
#include "quant/quantize_model.h"

namespace edgeq::cli {
namespace {

struct QuantizeArgs {
  std::string model, stats, scheme, range = "minmax", a16, mixed, exclude, overrides;
  std::string placement = "ort", qdq16 = "auto", out, encodings, encodings_format = "1.0.0";
  double percentile = 99.99;
  bool per_tensor_weights = false, symmetric_activations = false;
  bool saturation_safe = false, reduce_range = false;
  std::string images;  // read by weight repair (calibration sample) and --auto (evaluations)
  int threads = 0;
  AutoArgs search;
  RepairOptions repair;
  LedgerArgs ledger;
};

// --saturation-safe / --reduce-range: for 8-bit activations only, one of them.
void check_pair_options(const QuantizeArgs& a, const QuantConfig& c) {
  const char* flag = a.saturation_safe ? "--saturation-safe" : "--reduce-range";
  if (!a.saturation_safe && !a.reduce_range) return;
  EDGEQ_CHECK(!(a.saturation_safe && a.reduce_range),
              "--saturation-safe and --reduce-range are two answers to one problem; choose one");
  EDGEQ_CHECK(c.activation_bits == 8 && c.weight_bits == 8, flag, ": --scheme ", a.scheme,
              " has no u8 x s8 int16 pairs to protect (only w8a8's 8-bit activations run on "
              "them)");
}

void run_quantize(const QuantizeArgs& a) {
  check_distinct_files({{"--model", a.model},
                        {"--stats", a.stats},
                        {"--mixed", a.mixed},
                        {"--overrides", a.overrides}},
                       {{"--out", a.out},
                        {"--encodings", a.encodings},
                        {"--auto-out", a.search.set_out},
                        {"--auto-log", a.search.log_out}});
  check_repair_options(a.repair);
  check_pair_options(a, config_for_scheme(a.scheme));
  LedgerRecorder ledger(a.ledger);
  const std::string bytes = read_file(a.model);
  Graph g = parse_onnx(bytes, a.model);
  Stats stats = load_stats(a.stats);
  const std::string sha = sha256_hex(bytes);
  check_stats_for_model(stats, sha, a.stats, a.model);

  QuantConfig c = config_for_scheme(a.scheme);
  std::ostringstream pct;
  pct << a.percentile;
  c.range = a.range == "percentile" ? "percentile:" + pct.str() : a.range;
  c.placement = parse_placement(a.placement);
  c.qdq16 = parse_qdq16(a.qdq16);
  c.per_channel_weights = !a.per_tensor_weights;
  c.activation_symmetric = a.symmetric_activations;
  c.saturation_safe = a.saturation_safe;
  c.reduce_range = a.reduce_range;
  for (const std::string& n : comma_list(a.exclude)) c.exclude_nodes.insert(n);
  if (!a.overrides.empty())
    c.overrides = parse_overrides(read_file(a.overrides, kMaxTextBytes), a.overrides);

  // --a16: value names, 'decode' or 'none'. Unset, W8A8 keeps the decode tail at 16 bit when the
  // model has one (a cut arm has none); unless 'none', the outputs are assembled in float.
  const std::vector<std::string> a16 = comma_list(a.a16);
  const bool none = a16.size() == 1 && a16[0] == "none";
  const bool decode =
      a.a16.empty() ? c.activation_bits < 16 : std::count(a16.begin(), a16.end(), "decode") > 0;
  const auto [plan, tail] = plan_with_decode_tail(g, stats, !none, decode, c);
  for (const std::string& n : a16) {
    EDGEQ_CHECK(n != "none" || none, "--a16 none cannot be combined with other names");
    if (n == "decode")
      EDGEQ_CHECK(!tail.empty(), "--a16 decode: no YOLO box / keypoint decode found in '", a.model,
                  "' (no Mul by per-anchor strides)");
    else if (!none)
      c.a16.insert(n);
  }
  if (!a.mixed.empty())
    for (const std::string& n : load_mixed_set(a.mixed)) c.a16.insert(n);
  check_auto_args(a.search, c);
  apply_auto_search(a.search, g, stats, c);

  const auto repaired = repair_model(a.repair, g, plan, c, stats, sha);
  QdqModel q = quantize_model(g, plan, stats, c, repaired);

  // Pixel-space values at 8 bit: a step of several pixels, and a Concat that also carries the
  // scores (output0) rounds them to 0.
  size_t tail8 = 0;
  std::string worst;
  float worst_step = 0;
  for (const std::string& v : tail) {
    auto it = q.encodings.activations.find(v);
    if (it == q.encodings.activations.end() || it->second.is_float) continue;
    const Encoding& e = it->second.channels.at(0);
    if (e.bitwidth > 8) continue;
    ++tail8;
    if (e.scale > worst_step) worst_step = e.scale, worst = v;
  }
  if (tail8)
    std::cerr << "warning: " << tail8 << " value" << (tail8 == 1 ? "" : "s")
              << " of the YOLO head's pixel-space decode tail stay 8-bit (e.g. '" << worst
              << "', a step of " << worst_step
              << "): boxes lose pixels and scores sharing output0's encoding round to 0; keep "
                 "the w8a8 default --a16 decode\n";

  save_onnx(q.graph, a.out);
  if (!a.encodings.empty()) save_encodings(q.encodings, a.encodings, a.encodings_format);

  QuantSummary s = summarize_encodings(q.encodings);
  std::printf("%s, range %s, placement %s: activations %zu at 8 bit, %zu at 16 bit",
              a.scheme.c_str(), c.range.c_str(), a.placement.c_str(), s.act8, s.act16);
  if (s.act_other) std::printf(", %zu at other widths", s.act_other);
  if (s.act_float) std::printf(", %zu left float", s.act_float);
  std::printf("; params %zu per-channel, %zu per-tensor (%s weights)\n", s.weights_per_channel,
              s.params_per_tensor, c.per_channel_weights ? "per-channel" : "per-tensor");
  if (!tail.empty()) std::printf("decode tail: %zu values, %zu at 8 bit\n", tail.size(), tail8);
  if (c.saturation_safe)
    std::printf("saturation-safe: %lld weight codes changed in %lld convs\n",
                static_cast<long long>(q.saturation_safe_codes),
                static_cast<long long>(q.saturation_safe_convs));
  std::printf("wrote %s\n", a.out.c_str());
  if (!a.encodings.empty())
    std::printf("wrote %s (encodings %s)\n", a.encodings.c_str(), a.encodings_format.c_str());
  const nlohmann::json report = {{"scheme", a.scheme},
                                 {"range", c.range},
                                 {"placement", a.placement},
                                 {"activations_8bit", s.act8},
                                 {"activations_16bit", s.act16},
                                 {"activations_other", s.act_other},
                                 {"activations_float", s.act_float},
                                 {"weights_per_channel", s.weights_per_channel},
                                 {"params_per_tensor", s.params_per_tensor},
                                 {"decode_tail_values", tail.size()},
                                 {"decode_tail_8bit", tail8}};
  ledger.record("quantize", report, a.model, a.out);
}

}  // namespace

void register_quantize(CLI::App& app) {
  auto a = std::make_shared<QuantizeArgs>();
  auto* cmd =
      app.add_subcommand("quantize", "Quantize an FP32 model from calibration stats to QDQ ONNX");
  cmd->add_option("--model", a->model, "FP32 ONNX model (the one the stats were computed for)")
      ->required();
  cmd->add_option("--stats", a->stats, "calibration stats (edgeq calibrate)")->required();
  cmd->add_option("--scheme", a->scheme, "w8a8 | w8a16")->required();
  cmd->add_option("--range", a->range, "minmax | percentile | entropy | mse")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy", "mse"}))
      ->capture_default_str();
  cmd->add_option("--percentile", a->percentile, "percentile for --range percentile")
      ->check(CLI::Range(50.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--a16", a->a16,
                  "values kept at 16 bit (comma-separated); 'decode': the YOLO head's "
                  "pixel-space decode tail, found by structure (the w8a8 default when the model "
                  "has one); 'none': no value");
  cmd->add_option("--mixed", a->mixed, "mixed-precision set (doctor --sensitivity): 16-bit values");
  cmd->add_option("--exclude", a->exclude, "node names left in float (comma-separated)");
  cmd->add_option("--overrides", a->overrides,
                  "JSON {tensor: {bitwidth, min, max, symmetric} | \"float\"}, applied last");
  cmd->add_option("--placement", a->placement,
                  "ort (ONNX Runtime's QDQ rules) | qnn (every value, Concat shared) | cpu (only "
                  "inputs of Conv / MatMul / Gemm, as OpenVINO)")
      ->capture_default_str();
  cmd->add_flag("--per-tensor-weights", a->per_tensor_weights, "one weight encoding per tensor");
  cmd->add_flag("--symmetric-activations", a->symmetric_activations,
                "int8/int16 symmetric activations instead of uint8/uint16 asymmetric");
  cmd->add_option("--qdq16", a->qdq16, "16-bit Q/DQ: auto | contrib | opset21")
      ->capture_default_str();
  cmd->add_flag("--saturation-safe", a->saturation_safe,
                "w8a8 for ONNX Runtime / oneDNN on x86 CPUs that may lack VNNI: Conv weight codes "
                "no int16 pair of products can overflow (per channel, overflowing pairs lowered "
                "or a coarser grid; GPTQ compensates with --images --gptq); not the default: on "
                "NPUs, VNNI and ARM CPUs the plain file is exact (doctor --target cpu-avx2 "
                "checks a file)");
  cmd->add_flag("--reduce-range", a->reduce_range,
                "w8a8 with 7-bit weight codes everywhere (-64..64, ONNX Runtime's reduce_range): "
                "no pair can overflow, at twice the weight step; for comparison with "
                "--saturation-safe");
  cmd->add_option("--out", a->out, "QDQ ONNX to write")->required();
  cmd->add_option("--encodings", a->encodings, "also write encodings JSON (AIMET/QNN form)");
  cmd->add_option("--encodings-format", a->encodings_format, "1.0.0 | 0.6.1")
      ->check(CLI::IsMember({"1.0.0", "0.6.1"}))
      ->capture_default_str();
  cmd->add_option("--images", a->images,
                  "images for weight repair (sampled as calibrate does) and for --auto's "
                  "evaluations: folder, one image or a text list");
  cmd->add_option("--threads", a->threads, "threads for weight repair and --auto (0: all cores)");
  add_auto_options(cmd, a->search);
  add_repair_options(cmd, a->repair);
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a] {
    a->search.images = a->repair.images = a->images;
    a->search.threads = a->repair.threads = a->threads;
    run_quantize(*a);
  });
}

}  // namespace edgeq::cli
