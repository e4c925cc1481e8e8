#include "cli/repair_options.h"

#include <omp.h>

#include <cstdio>
#include <iostream>
#include <opencv2/core.hpp>

#include "cli/model_input.h"
#include "core/error.h"
#include "core/progress.h"
#include "quant/calibration_images.h"
#include "quant/calibration_run.h"
#include "quant/cle.h"
#include "quant/weight_repair.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq::cli {
namespace {

// The sampled calibration images and how one is read, as `edgeq calibrate` does.
struct RepairImages {
  std::vector<CalibrationImage> sample;
  std::string input;
  ImageLoader load;
};

RepairImages repair_images(const RepairOptions& o, const Graph& g, const Stats& stats) {
  const ValueInfo& in = yolo_image_input(g);
  EDGEQ_CHECK(in.shape[0] == 1 && in.shape[2] > 0 && in.shape[3] > 0, "weight repair feeds ",
              "images one at a time at the model's fixed size; input '", in.name, "' is ",
              shape_str(in.shape));
  const int h = static_cast<int>(in.shape[2]), w = static_cast<int>(in.shape[3]);
  const std::string pre = letterbox_preprocessing(h, w);
  EDGEQ_CHECK(stats.preprocessing == pre, "the stats were computed from images read as '",
              stats.preprocessing, "'; weight repair reads --images as '", pre, "'");
  RepairImages r;
  r.sample = sample_calibration_images(list_calibration_images(o.images), o.n, o.seed);
  r.input = in.name;
  r.load = [&sample = r.sample, h, w](size_t i) {
    return preprocess_image(read_image(sample[i].path), h, w, nullptr);
  };
  return r;
}

// Cross-layer equalization of g; the values between equalized convs get fresh statistics.
void equalize(const RepairOptions& o, Graph& g, const RepairImages& im, Stats& stats,
              const std::string& model_sha256) {
  const std::vector<EqualizationCandidate> found = find_equalization_pairs(g);
  std::printf("cross-layer equalization: %s\n", describe_equalization(found).c_str());
  const std::vector<EqualizedPair> pairs = equalize_pairs(g, found);
  if (pairs.empty()) return;
  for (const EqualizedPair& p : pairs)
    std::printf("  equalized %s -> %s: channel range spread %.3g -> %.3g\n", p.first.c_str(),
                p.second.c_str(), p.spread_before, p.spread_after);
  CalibrationRunOptions opt;  // one single-threaded worker: statistics independent of --threads
  opt.calibrator.executor.threads = 1;
  Progress progress("equalized value statistics", im.sample.size());
  CalibrationRun run = calibrate_images(g, model_sha256, stats.preprocessing, im.input,
                                        im.sample.size(), im.load, opt, [&] { progress.step(); });
  progress.finish();
  for (const EqualizationCandidate& c : found)
    if (c.applicable())
      for (const std::string& v : c.between)
        if (stats.values.count(v)) stats.values[v] = run.stats.values.at(v);
}

}  // namespace

void add_repair_options(CLI::App* cmd, RepairOptions& o) {
  cmd->add_flag("--cle", o.cle,
                "cross-layer equalization of Conv -> depthwise Conv pairs with nothing but "
                "positively homogeneous ops between (needs --images)");
  cmd->add_flag("--gptq,!--no-gptq", o.gptq,
                "GPTQ rounding of Conv weights on their grid, errors compensated on the "
                "calibration inputs (needs --images; with --images the w8a16 default)");
  cmd->add_flag("--bias-correction", o.bias_correction,
                "subtract the mean output shift weight rounding causes from Conv biases (needs "
                "--images)");
  cmd->add_option("--n", o.n, "images weight repair samples")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", o.seed, "sampling seed for --images")->capture_default_str();
  cmd->add_option("--repair-memory", o.memory_mib,
                  "MiB of GPTQ Hessians held at once (more convs per pass over the images)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

void check_repair_options(const RepairOptions& o) {
  EDGEQ_CHECK(!o.asked() || !o.images.empty(),
              o.cle        ? "--cle"
              : o.gptq > 0 ? "--gptq"
                           : "--bias-correction",
              " needs --images (the calibration images its statistics come from)");
}

std::map<std::string, TensorEncoding> repair_model(const RepairOptions& o, Graph& g,
                                                   const QuantPlan& plan, const QuantConfig& c,
                                                   Stats& stats, const std::string& model_sha256) {
  if (o.images.empty()) return {};
  WeightRepairOptions opt;
  opt.gptq = o.gptq > 0 || (o.gptq == 0 && gptq_by_default(c));
  opt.bias_correction = o.bias_correction;
  opt.gptq_options.saturation_safe = c.saturation_safe || c.reduce_range;
  opt.threads = o.threads;
  if (!o.cle && !opt.any()) {
    std::cerr << "note: --images: no weight repair to run (GPTQ is the w8a16 default; "
                 "--gptq, --bias-correction and --cle ask for one)\n";
    return {};
  }
  cv::setNumThreads(0);
  const RepairImages im = repair_images(o, g, stats);
  if (o.cle) equalize(o, g, im, stats, model_sha256);
  const std::vector<ConvInputRequest> requests = weight_repair_requests(g, plan, opt);
  if (requests.empty()) return {};
  const auto rounds = conv_input_rounds(g, requests, o.memory_mib << 20);
  Progress progress("weight repair", rounds.size() * im.sample.size());
  bool skipped = false;
  WeightRepairSummary s;
  std::map<std::string, TensorEncoding> fixed;
  ConvInputPass pass = collect_conv_inputs(
      g, im.input, rounds, im.sample.size(), im.load, o.threads, [&] { progress.step(); },
      [&](const std::string& why) {
        if (!skipped) progress.finish();
        skipped = true;
        std::cerr << "skipping unreadable image: " << why << "\n";
      },
      [&](ConvInputRound&& moments) { fixed.merge(repair_weights(g, plan, c, opt, moments, &s)); });
  progress.finish();
  std::printf("weight repair on %zu image%s (%d pass%s):", pass.used, pass.used == 1 ? "" : "s",
              pass.rounds, pass.rounds == 1 ? "" : "es");
  if (opt.gptq)
    std::printf(" GPTQ %d convs, %lld of %lld weight channels exact (kept), %lld codes changed;",
                s.convs, static_cast<long long>(s.rows_exact), static_cast<long long>(s.rows),
                static_cast<long long>(s.codes_changed));
  if (o.bias_correction)
    std::printf(" bias correction %d convs, largest shift %.3g;", s.convs, s.max_bias_shift);
  std::printf("\n");
  return fixed;
}

}  // namespace edgeq::cli
