// edgeq probe: a linear task probe on a model's outputs (arm A: pooled taps), k-fold
// cross-validated; with --quantized, also the frozen and retrained readings (edgeq/probe.h).
#include "edgeq/probe.h"

#include <cstdio>
#include <iostream>
#include <optional>

#include "commands.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/interrupt.h"
#include "edgeq/progress_bar.h"
#include "edgeq/text.h"
#include "number_options.h"

namespace edgeq::cli {
namespace {

struct ProbeArgs {
  std::string model, quantized, images, labels, task = "auto", json;
  int folds = 5, threads = 0;
  double l2 = 0.1;
};

void run_probe_cli(const ProbeArgs& a) {
  check_distinct_files({{"--model", a.model},
                        {"--quantized", a.quantized},
                        {"--labels", a.labels},
                        image_input("--images", a.images)},
                       {{"--json", a.json, RoleFile::kText}});
  const ProbeSetup setup = prepare_probe(a.model, a.quantized, a.images, a.labels, a.task, a.folds);
  if (setup.images.size() < setup.listed)  // never dropped silently
    std::cerr << "note: " << setup.listed - setup.images.size() << " of the " << setup.listed
              << " images have no row in " << printable(a.labels) << " and are not probed\n";
  // A bar per model on stderr; Ctrl-C stops at the next image, nothing written.
  InterruptScope interrupt;
  std::optional<Progress> bar;
  auto progress = [&](const ProgressEvent& e) {
    if (e.done == 0)
      bar.emplace(e.task, e.total);
    else
      bar->step();
    return !interrupt.interrupted();
  };
  ProbeOptions opt;
  opt.folds = a.folds;
  opt.l2 = a.l2;
  const ProbeResult r = probe(setup, opt, a.threads, progress);
  const bool cls = r.task == ProbeTask::kClassify;
  std::printf("%s probe on %zu images, %zu features, %d-fold CV (%s", cls ? "class" : "value",
              r.samples, r.features, r.folds, cls ? "accuracy" : "R^2");
  if (cls) std::printf("; %d classes, majority share %.3f", r.classes, r.chance);
  std::printf("):\n  fp32       %.4f\n", r.fp32.score);
  if (r.has_quantized)
    std::printf(
        "  frozen     %.4f   (FP32-trained probe on quantized features)\n  retrained  %.4f"
        "   (trained on quantized features)\n",
        r.frozen.score, r.retrained.score);
  if (!a.json.empty()) write_file_atomic(a.json, probe_json(r) + "\n");
}

}  // namespace

void register_probe(CLI::App& app) {
  auto a = std::make_shared<ProbeArgs>();
  auto* cmd = app.add_subcommand(
      "probe", "Linear task probe on pooled features: FP32, frozen and retrained readings");
  cmd->add_option("--model", a->model, "FP32 model whose outputs are the features (arm A)")
      ->required();
  cmd->add_option("--quantized", a->quantized,
                  "its quantized model (same outputs): adds the frozen and retrained readings");
  cmd->add_option("--images", a->images, "image folder or image")->required();
  cmd->add_option("--labels", a->labels, "CSV image,label (class name, integer class or value)")
      ->required();
  cmd->add_option("--task", a->task, "auto | classify | regress")
      ->check(CLI::IsMember({"auto", "classify", "regress"}))
      ->capture_default_str();
  add_number(cmd, "--folds", a->folds, ranges::kFolds, "cross-validation folds")
      ->capture_default_str();
  add_number(cmd, "--l2", a->l2, ranges::kPenalty, "L2 penalty (on standardized features)")
      ->capture_default_str();
  add_number(cmd, "--threads", a->threads, ranges::threads(), "threads");
  cmd->add_option("--json", a->json, "write the readings as JSON");
  cmd->callback([a] { run_probe_cli(*a); });
}

}  // namespace edgeq::cli
