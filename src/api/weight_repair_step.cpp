#include <opencv2/core.hpp>

#include "api/quantize_steps.h"
#include "calib/calibration_run.h"
#include "core/error.h"
#include "repair/cle.h"
#include "repair/conv_input_pass.h"
#include "repair/weight_repair.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

// The sampled images and how one is read, as calibrate() does.
struct RepairImages {
  std::vector<CalibrationImage> sample;
  std::string input;
  ImageLoader load;
};

RepairImages repair_images(const QuantizeOptions& o, const Graph& g, const Stats& stats) {
  const ValueInfo& in = yolo_image_input(g);
  EDGEQ_CHECK(in.shape[0] == 1 && in.shape[2] > 0 && in.shape[3] > 0, "weight repair feeds ",
              "images one at a time at the model's fixed size; input '", in.name, "' is ",
              shape_str(in.shape));
  const int h = static_cast<int>(in.shape[2]), w = static_cast<int>(in.shape[3]);
  const std::string pre = letterbox_preprocessing(h, w);
  EDGEQ_CHECK(stats.preprocessing == pre, "the stats were computed from images read as '",
              stats.preprocessing, "'; weight repair reads its images as '", pre, "'");
  const detail::ImageSourceImpl& src = impl_of(*o.images);
  RepairImages r;
  r.sample = src.sample(o.repair.n, o.repair.seed);
  r.input = in.name;
  r.load = [&src, &sample = r.sample, h, w](size_t i) {
    return preprocess_image(src.read(sample[i]), h, w, nullptr);
  };
  return r;
}

// Cross-layer equalization of g; the values between equalized convs get fresh statistics.
void equalize(Graph& g, const RepairImages& im, Stats& stats, const std::string& model_sha256,
              ProgressReporter& progress, RepairReport& report) {
  const std::vector<EqualizationCandidate> found = find_equalization_pairs(g);
  report.equalization = describe_equalization(found);
  const std::vector<EqualizedPair> pairs = equalize_pairs(g, found);
  if (pairs.empty()) return;
  for (const EqualizedPair& p : pairs)
    report.equalized.push_back({p.first, p.second, p.spread_before, p.spread_after});
  CalibrationRunOptions opt;  // one single-threaded worker: statistics independent of threads
  opt.calibrator.executor.threads = 1;
  const std::string task = "equalized value statistics";
  size_t done = 0;
  progress.step(task, 0, im.sample.size());
  CalibrationRun run =
      calibrate_images(g, model_sha256, stats.preprocessing, im.input, im.sample.size(), im.load,
                       opt, [&] { progress.step(task, ++done, im.sample.size()); });
  for (const EqualizationCandidate& c : found)
    if (c.applicable())
      for (const std::string& v : c.between)
        if (stats.values.count(v)) stats.values[v] = run.stats.values.at(v);
}

}  // namespace

std::map<std::string, TensorEncoding> repair_weights_step(
    const QuantizeOptions& o, Graph& g, const QuantPlan& plan, const QuantConfig& c, Stats& stats,
    const std::string& model_sha256, ProgressReporter& progress, RepairReport& report) {
  if (!o.images) return {};
  const RepairOptions& r = o.repair;
  WeightRepairOptions opt;
  opt.gptq = r.gptq == RepairOptions::Gptq::kOn ||
             (r.gptq == RepairOptions::Gptq::kSchemeDefault && gptq_by_default(c));
  opt.bias_correction = r.bias_correction;
  opt.gptq_options.saturation_safe = c.saturation_safe || c.reduce_range;
  opt.threads = o.threads;
  if (!r.cle && !opt.any()) {
    progress.warning("weight repair",
                     "images given: no weight repair to run (GPTQ is the w8a16 default; "
                     "gptq, bias_correction and cle ask for one)");
    return {};
  }
  cv::setNumThreads(0);
  const RepairImages im = repair_images(o, g, stats);
  report.ran = true;
  if (r.cle) equalize(g, im, stats, model_sha256, progress, report);
  const std::vector<ConvInputRequest> requests = weight_repair_requests(g, plan, opt);
  if (requests.empty()) return {};
  const auto rounds = conv_input_rounds(g, requests, r.memory_mib << 20);
  const size_t total = rounds.size() * im.sample.size();
  size_t done = 0;
  progress.step("weight repair", 0, total);
  WeightRepairSummary s;
  std::map<std::string, TensorEncoding> fixed;
  ConvInputPass pass = collect_conv_inputs(
      g, im.input, rounds, im.sample.size(), im.load, o.threads,
      [&] { progress.step("weight repair", ++done, total); },
      [&](const std::string& why) {
        progress.warning("weight repair", "skipping unreadable image: " + why);
      },
      [&](ConvInputRound&& moments) { fixed.merge(repair_weights(g, plan, c, opt, moments, &s)); });
  report.images = pass.used;
  report.passes = pass.rounds;
  report.gptq = opt.gptq;
  report.bias_correction = r.bias_correction;
  report.convs = s.convs;
  report.rows = s.rows;
  report.rows_exact = s.rows_exact;
  report.codes_changed = s.codes_changed;
  report.max_bias_shift = s.max_bias_shift;
  return fixed;
}

}  // namespace edgeq
