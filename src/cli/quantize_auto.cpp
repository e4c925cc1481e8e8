#include "cli/quantize_auto.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/mixed_search.h"
#include "analysis/mixed_set.h"
#include "cli/model_input.h"
#include "core/error.h"
#include "core/file_io.h"

namespace edgeq::cli {
namespace {

nlohmann::json metrics_json(const DetectionLoss& m) {
  return {{"loss", m.total()}, {"box_px", m.box_px},   {"kpt_px", m.kpt_px},
          {"score", m.score},  {"flipped", m.flipped}, {"confident_anchors", m.confident}};
}

nlohmann::json log_json(const MixedSearchResult& r, const AutoArgs& a, size_t images) {
  nlohmann::json steps = nlohmann::json::array();
  for (const MixedSearchStep& s : r.log)
    steps.push_back({{"phase", s.phase},
                     {"tried", s.tried},
                     {"values", s.values},
                     {"loss_before", s.loss_before},
                     {"loss_after", s.loss_after},
                     {"kept", s.kept},
                     {"metrics", metrics_json(s.metrics)}});
  return {{"format", "edgeq-auto-log"},
          {"version", 1},
          {"budget_percent", a.percent},
          {"images", images},
          {"values", r.values},
          {"values_16bit", r.values16},
          {"chosen", r.a16},
          {"base", metrics_json(r.base_metrics)},
          {"result", metrics_json(r.metrics)},
          {"steps", steps}};
}

}  // namespace

void add_auto_options(CLI::App* cmd, AutoArgs& a) {
  cmd->add_option("--auto", a.percent,
                  "w8a8: search which values to keep at 16 bit, at most this percent of the "
                  "activation values (the decode tail included), on --images (a validation "
                  "split the stats did not see)")
      ->each([&a](const std::string&) { a.given = true; });
  cmd->add_option("--auto-n", a.n, "--auto: use at most this many of --images")
      ->capture_default_str();
  cmd->add_option("--auto-out", a.set_out,
                  "--auto: write the chosen set (edgeq-mixed JSON, usable with --mixed)");
  cmd->add_option("--auto-log", a.log_out, "--auto: write every evaluation of the search as JSON");
}

void check_auto_args(const AutoArgs& a, const QuantConfig& c) {
  if (!a.given) {
    EDGEQ_CHECK(a.set_out.empty() && a.log_out.empty(), "--auto-out / --auto-log need --auto");
    return;
  }
  EDGEQ_CHECK(a.percent > 0 && a.percent <= 100, "--auto ", a.percent,
              ": the budget is a percent of the activation values, in (0, 100]");
  EDGEQ_CHECK(c.activation_bits == 8,
              "--auto searches a W8A8 model's 16-bit values: use "
              "--scheme w8a8");
  EDGEQ_CHECK(!a.images.empty(), "--auto needs --images (validation images the stats did not see)");
  EDGEQ_CHECK(a.n > 0, "--auto-n must be positive");
}

void apply_auto_search(const AutoArgs& a, const Graph& g, const Stats& stats, QuantConfig& c) {
  if (!a.given) return;
  std::vector<Tensor> images = load_image_inputs(g, a.images, a.n, "--images");
  std::cerr << "auto: searching 16-bit values within " << a.percent << " % on " << images.size()
            << " validation images\n";
  MixedSearchOptions opt;
  opt.budget_percent = a.percent;
  opt.threads = a.threads;
  opt.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  MixedSearchResult r = search_mixed_precision(g, stats, c, images, opt);
  c.a16.insert(r.a16.begin(), r.a16.end());
  std::printf(
      "auto %g%%: %zu of %zu values at 16 bit (%zu chosen by the search); loss %.4g -> "
      "%.4g (box %.3g -> %.3g px, kpt %.3g -> %.3g px, score %.3g -> %.3g, flipped %.3g "
      "-> %.3g) on %zu validation images\n",
      a.percent, r.values16, r.values, r.a16.size(), r.base_loss, r.loss, r.base_metrics.box_px,
      r.metrics.box_px, r.base_metrics.kpt_px, r.metrics.kpt_px, r.base_metrics.score,
      r.metrics.score, r.base_metrics.flipped, r.metrics.flipped, images.size());
  if (!a.set_out.empty()) {
    MixedSet m;
    m.a16.assign(r.a16.begin(), r.a16.end());
    save_mixed_set(m, a.set_out);
    std::printf("wrote %s (--mixed)\n", a.set_out.c_str());
  }
  if (!a.log_out.empty()) {
    write_file_atomic(a.log_out, log_json(r, a, images.size()).dump(2) + "\n");
    std::printf("wrote %s\n", a.log_out.c_str());
  }
}

}  // namespace edgeq::cli
