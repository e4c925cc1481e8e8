#include <nlohmann/json.hpp>

#include "api/quantize_steps.h"
#include "core/error.h"
#include "core/json_text.h"
#include "quant/mixed_search.h"
#include "vision/letterbox.h"
#include "vision/yolo_model.h"

namespace edgeq {
namespace {

nlohmann::json metrics_json(const DetectionLoss& m) {
  return {{"loss", m.total()}, {"box_px", m.box_px},   {"kpt_px", m.kpt_px},
          {"score", m.score},  {"flipped", m.flipped}, {"confident_anchors", m.confident}};
}

nlohmann::json log_json(const MixedSearchResult& r, double percent, size_t images) {
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
          {"budget_percent", percent},
          {"images", images},
          {"values", r.values},
          {"values_16bit", r.values16},
          {"chosen", r.a16},
          {"base", metrics_json(r.base_metrics)},
          {"result", metrics_json(r.metrics)},
          {"steps", steps}};
}

DetectionError detection_error(const DetectionLoss& m) {
  return {m.total(), m.box_px, m.kpt_px, m.score, m.flipped};
}

// The first `n` of a seeded sample (seed 0), letterboxed; an unreadable image is an error (the
// search compares every candidate on the same images).
std::vector<Tensor> validation_inputs(const Graph& g, const ImageSource& source, size_t n) {
  const int h = yolo_input_height(g), w = yolo_input_width(g);
  const detail::ImageSourceImpl& src = impl_of(source);
  std::vector<Tensor> out;
  for (const CalibrationImage& im : src.sample(n, 0))
    out.push_back(preprocess_image(src.read(im), h, w, nullptr));
  return out;
}

}  // namespace

AutoSearchReport auto_search_step(const QuantizeOptions& o, const Graph& g, const Stats& stats,
                                  QuantConfig& c, ProgressReporter& progress) {
  AutoSearchReport rep;
  if (o.search.percent == 0) return rep;
  std::vector<Tensor> images = validation_inputs(g, *o.images, o.search.n);
  std::ostringstream head;
  head << "searching 16-bit values within " << o.search.percent << " % on " << images.size()
       << " validation images";
  progress.message("auto", "auto: " + head.str());
  MixedSearchOptions opt;
  opt.budget_percent = o.search.percent;
  opt.threads = o.threads;
  opt.progress = [&progress](const std::string& line) { progress.message("auto", line); };
  MixedSearchResult r = search_mixed_precision(g, stats, c, images, opt);
  c.a16.insert(r.a16.begin(), r.a16.end());
  rep.ran = true;
  rep.percent = o.search.percent;
  rep.images = images.size();
  rep.chosen.assign(r.a16.begin(), r.a16.end());
  rep.values16 = r.values16;
  rep.values = r.values;
  rep.base_loss = r.base_loss;
  rep.loss = r.loss;
  rep.base = detection_error(r.base_metrics);
  rep.result = detection_error(r.metrics);
  rep.log_json = json_text(log_json(r, o.search.percent, images.size()), 2) + "\n";
  return rep;
}

}  // namespace edgeq
