#include "edgeq/compare.h"

#include <sstream>

#include "api/api_impl.h"
#include "api/exec_options.h"
#include "core/json_text.h"
#include "core/option_range.h"
#include "eval/compare.h"
#include "eval/compare_report.h"

namespace edgeq {

CompareReport compare(const Model& reference, const Model& test, const std::string& images,
                      const CompareOptions& o) {
  CompareRunOptions opt;
  opt.ref_model = reference.name();
  opt.test_model = test.name();
  opt.images = images;
  opt.labels = o.labels;
  opt.max_images = static_cast<int>(check_option("n", o.n, ranges::kImagesOrAll));
  check_option("conf", o.conf, ranges::kFraction);
  check_option("iou", o.iou, ranges::kFraction);
  check_option("map_conf", o.map_conf, ranges::kFraction);
  opt.post.conf = o.conf;
  opt.post.iou = o.iou;
  opt.map_conf = o.map_conf;
  const ExecutorOptions e = executor_options(o.exec);
  opt.exec = e.exec;
  opt.emulate = e.emulate;
  opt.threads = e.threads;
  opt.save_inputs = o.save_inputs;
  opt.test_outputs = o.test_outputs;
  opt.keep_detections =
      static_cast<int>(check_option("keep_detections", o.keep_detections, ranges::kCount));

  ProgressReporter progress(o.progress);
  CompareHooks hooks;
  hooks.note = [&](const std::string& line) { progress.message("compare", line); };
  hooks.image = [&](size_t done, size_t total, const std::string&) {
    progress.step("compare", done, total);
  };
  const CompareResult rep = run_compare(impl_of(reference).graph, impl_of(test).graph, opt, hooks);

  CompareReport out;
  out.images = static_cast<size_t>(rep.images);
  auto moments = [](const std::vector<ChannelMoments>& v) {
    std::vector<CompareReport::Moments> m;
    for (const auto& c : v) m.push_back({c.mean, c.var, c.min, c.max});
    return m;
  };
  for (const auto& e : rep.outputs)
    out.outputs.push_back({e.name, e.error.rel_l2, e.error.cosine, e.error.max_abs,
                           moments(e.ref_channels), moments(e.test_channels), e.diverging.first,
                           e.diverging.last});
  out.detections = rep.has_detections;
  out.pose = rep.pose;
  const DetectionDiff& d = rep.detections;
  out.ref_detections = d.ref_count, out.test_detections = d.test_count;
  out.matched = d.matched, out.extra = d.extra, out.missing = d.missing;
  out.match_rate = d.match_rate;
  out.box_px = d.box_px.mean, out.kpt_px = d.kpt_px.mean;
  out.score_abs = d.score_abs.mean, out.score_bias = d.score_bias;
  out.labelled = rep.has_labels;
  out.ref_box_map50_95 = rep.ref_metrics.box.map50_95;
  out.test_box_map50_95 = rep.test_metrics.box.map50_95;
  out.ref_pose_map50_95 = rep.ref_metrics.pose.map50_95;
  out.test_pose_map50_95 = rep.test_metrics.pose.map50_95;
  out.json = json_text(compare_report_json(rep), 2);
  out.text = printed([&](std::ostream& os) { print_compare_report(rep, os); });
  return out;
}

}  // namespace edgeq
