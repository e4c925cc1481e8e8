// edgeq quantize: flags onto edgeq::QuantizeOptions (include/edgeq/quantize.h), one call to
// edgeq::quantize, the result printed and saved. The recipe and its defaults live in the library.
#include "edgeq/quantize.h"

#include "choice_options.h"
#include "commands.h"
#include "edgeq/files.h"
#include "edgeq/inert_options.h"
#include "edgeq/mixed_set.h"
#include "edgeq/report_json.h"
#include "edgeq/text.h"
#include "ledger_options.h"
#include "model_input.h"
#include "number_options.h"
#include "progress_printer.h"
#include "quantize_auto.h"
#include "quantize_print.h"
#include "repair_options.h"

namespace edgeq::cli {
namespace {

struct QuantizeArgs {
  std::string model, stats, a16, mixed, exclude, out, encodings, encodings_format = "1.0.0";
  std::string images;  // read by weight repair and --auto
  QuantizeOptions options;
  AutoArgs search;
  RepairArgs repair;
  LedgerArgs ledger;
};

void run_quantize(QuantizeArgs& a, const CLI::App& cmd) {
  check_distinct_files({{"--model", a.model},
                        {"--stats", a.stats},
                        {"--mixed", a.mixed},
                        {"--overrides", a.options.overrides_file},
                        image_input("--images", a.images)},
                       {{"--out", a.out},
                        {"--encodings", a.encodings, RoleFile::kText},
                        {"--auto-out", a.search.set_out, RoleFile::kText},
                        {"--auto-log", a.search.log_out, RoleFile::kText},
                        ledger_output(a.ledger)});
  check_auto_args(a.search);
  LedgerRecorder ledger(a.ledger);
  QuantizeOptions& o = a.options;
  o.a16 = comma_list(a.a16);
  o.exclude = comma_list(a.exclude);
  if (!a.mixed.empty())
    for (const std::string& n : load_mixed_set(a.mixed)) o.mixed.push_back(n);
  if (!a.images.empty())
    o.images = std::make_shared<ImageSource>(image_source("--images", a.images));
  o.repair = a.repair.resolve();
  o.search = a.search.options;
  refuse_inert_given(o, given_flags(cmd, {{"percentile", "--percentile"},
                                          {"auto_n", "--auto-n"},
                                          {"repair_n", "--n"},
                                          {"seed", "--seed"},
                                          {"repair_memory_mib", "--repair-memory"}}));
  validate(o);  // before any file is read
  ProgressPrinter printer;
  o.progress = printer.callback();
  const Model model = Model::load(a.model);
  const QuantizedModel q = quantize(model, CalibrationStats::load(a.stats), o);
  write_auto_results(a.search, q.search());
  print_repair(q.repair());
  q.save(a.out);
  if (!a.encodings.empty()) q.save_encodings(a.encodings, a.encodings_format);
  print_quantize_summary(q, o, a.out, a.encodings, a.encodings_format);
  ledger.record("quantize", quantize_summary_json(q), a.model, a.out);
}

}  // namespace

void register_quantize(CLI::App& app) {
  auto a = std::make_shared<QuantizeArgs>();
  QuantizeOptions& o = a->options;
  auto* cmd =
      app.add_subcommand("quantize", "Quantize an FP32 model from calibration stats to QDQ ONNX");
  cmd->add_option("--model", a->model, "FP32 ONNX model (the one the stats were computed for)")
      ->required();
  cmd->add_option("--stats", a->stats, "calibration stats (edgeq calibrate)")->required();
  add_choice(cmd, "--scheme", o.scheme, "w8a8 | w8a16")->required();
  add_choice(cmd, "--range", o.range, "minmax | percentile | entropy | mse")
      ->default_str(default_name(o.range));
  add_number(cmd, "--percentile", o.percentile, ranges::kPercentile,
             "percentile for --range percentile")
      ->default_str(format_number("%g", QuantizeOptions::kDefaultPercentile));
  cmd->add_option("--a16", a->a16,
                  "values kept at 16 bit (comma-separated); 'decode': the YOLO head's "
                  "pixel-space decode tail, found by structure (the w8a8 default when the model "
                  "has one); 'outputs': the graph outputs (a raw head's: cut --arm head); 'none': "
                  "no value");
  cmd->add_option("--mixed", a->mixed, "mixed-precision set (doctor --sensitivity): 16-bit values");
  cmd->add_option("--exclude", a->exclude, "node names left in float (comma-separated)");
  cmd->add_option("--overrides", o.overrides_file,
                  "JSON {tensor: {bitwidth, min, max, symmetric} | \"float\"}, applied last");
  add_choice(cmd, "--placement", o.placement,
             "ort (ONNX Runtime's QDQ rules) | qnn (every value, Concat shared) | cpu (only "
             "inputs of Conv / MatMul / Gemm, as OpenVINO)")
      ->default_str(default_name(o.placement));
  cmd->add_flag("--per-tensor-weights", o.per_tensor_weights, "one weight encoding per tensor");
  cmd->add_flag("--symmetric-activations", o.symmetric_activations,
                "int8/int16 symmetric activations instead of uint8/uint16 asymmetric");
  add_choice(cmd, "--qdq16", o.qdq16, "16-bit Q/DQ: auto | contrib | opset21")
      ->default_str(default_name(o.qdq16));
  add_saturation_options(cmd, o);
  add_choice(cmd, "--quantize-io", o.quantize_io,
             "graph inputs / outputs as integer codes, as NPU deployments compile them: none | in "
             "(the image as uint8 pixels, scale 1/255) | out (outputs as uint16 codes) | both")
      ->default_str(default_name(o.quantize_io));
  cmd->add_option("--out", a->out, "QDQ ONNX to write")->required();
  auto* encodings =
      cmd->add_option("--encodings", a->encodings, "also write encodings JSON (AIMET/QNN form)");
  cmd->add_option("--encodings-format", a->encodings_format, "1.0.0 | 0.6.1 (with --encodings)")
      ->check(CLI::IsMember({"1.0.0", "0.6.1"}))
      ->capture_default_str()
      ->needs(encodings);
  cmd->add_option("--images", a->images,
                  "images for weight repair (sampled as calibrate does) and for --auto's "
                  "evaluations: folder, one image or a text list");
  add_number(cmd, "--threads", o.threads, ranges::threads(),
             "threads for weight repair and --auto");
  add_auto_options(cmd, a->search);
  add_repair_options(cmd, a->repair);
  add_ledger_options(cmd, a->ledger);
  cmd->callback([a, cmd] { run_quantize(*a, *cmd); });
}

}  // namespace edgeq::cli
