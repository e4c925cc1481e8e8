#include "eval/compare_report.h"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "core/text_format.h"

namespace edgeq {
namespace {

// JSON has no infinity / NaN: write null for them.
nlohmann::json num(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json summary_json(const Summary& s) {
  return {{"count", s.count}, {"mean", num(s.mean)}, {"p95", num(s.p95)}, {"max", num(s.max)}};
}

nlohmann::json map_json(const MapResult& m) {
  return {{"map50", num(m.map50)},
          {"map50_95", num(m.map50_95)},
          {"classes", m.classes},
          {"labels", m.labels},
          {"predictions", m.predictions}};
}

// Boxes in the image's pixels: [{"box": [x1, y1, x2, y2], "score", "class"}].
nlohmann::json detections_json(const std::vector<Detection>& dets) {
  nlohmann::json a = nlohmann::json::array();
  for (const Detection& d : dets)
    a.push_back(
        {{"box", {d.box[0], d.box[1], d.box[2], d.box[3]}}, {"score", d.score}, {"class", d.cls}});
  return a;
}

nlohmann::json task_json(const TaskMetrics& t) {
  nlohmann::json j = {{"box", map_json(t.box)}};
  if (t.has_pose) j["pose"] = map_json(t.pose);
  return j;
}

}  // namespace

void print_compare_report(const CompareResult& rep, std::ostream& os) {
  os << "compare: " << printable(rep.options.test_model) << " against "
     << printable(rep.options.ref_model) << " on " << rep.images << " image(s)\n\n";
  os << "tensors (over all images)\n";
  char line[512];
  std::snprintf(line, sizeof(line), "  %-40s %-18s %12s %10s %12s\n", "output", "shape", "rel L2",
                "cosine", "max |diff|");
  os << line;
  for (const auto& o : rep.outputs) {
    std::snprintf(line, sizeof(line), "  %-40s %-18s %12.4e %10.6f %12.4e\n",
                  printable(o.name).c_str(), shape_str(o.shape).c_str(), o.error.rel_l2,
                  o.error.cosine, o.error.max_abs);
    os << line;
  }
  bool board = false;
  for (const auto& o : rep.outputs) board = board || !o.ref_channels.empty();
  if (board) {
    os << "\nper channel (test outputs from files against the reference; over all images)\n";
    for (const auto& o : rep.outputs) {
      if (o.ref_channels.empty()) continue;
      os << "  " << printable(o.name) << ": " << o.ref_channels.size() << " channels, ";
      if (o.diverging.first < 0) {
        os << "none diverges\n";
        continue;
      }
      const ChannelMoments& r = o.ref_channels[o.diverging.first];
      const ChannelMoments& t = o.test_channels[o.diverging.first];
      os << "first diverging block: channels " << o.diverging.first << "-" << o.diverging.last
         << "; channel " << o.diverging.first << " reference mean " << format_number("%.4g", r.mean)
         << " var " << format_number("%.4g", r.var) << " [" << format_number("%.4g", r.min) << ", "
         << format_number("%.4g", r.max) << "], test mean " << format_number("%.4g", t.mean)
         << " var " << format_number("%.4g", t.var) << " [" << format_number("%.4g", t.min) << ", "
         << format_number("%.4g", t.max) << "]\n";
    }
  }
  if (!rep.has_detections) {
    os << "\ndetections: none compared (the models have no YOLO head output)\n";
    return;
  }
  const DetectionDiff& d = rep.detections;
  const auto& post = rep.options.post;
  os << "\ndetections (conf " << post.conf << ", NMS IoU " << post.iou
     << ", matched at IoU >= " << rep.options.match_iou << ", original-image px)\n";
  os << "  reference " << d.ref_count << ", test " << d.test_count << ", matched " << d.matched
     << " (match rate "
     << (d.match_rate ? format_number("%.1f%%", 100.0 * *d.match_rate) : std::string("none"))
     << "), extra " << d.extra << ", missing " << d.missing << "\n";
  if (!d.match_rate) os << "  notice: " << match_rate_notice(d) << "\n";
  os << "  box corner error px   mean " << format_number("%.3f", d.box_px.mean) << "  p95 "
     << format_number("%.3f", d.box_px.p95) << "  max " << format_number("%.3f", d.box_px.max)
     << "\n";
  if (rep.pose)
    os << "  keypoint error px     mean " << format_number("%.3f", d.kpt_px.mean) << "  p95 "
       << format_number("%.3f", d.kpt_px.p95) << "  max " << format_number("%.3f", d.kpt_px.max)
       << "  (" << d.kpt_px.count << " points visible in the reference)\n";
  os << "  score shift           mean " << format_number("%.4f", d.score_abs.mean) << "  max "
     << format_number("%.4f", d.score_abs.max) << "  bias " << format_number("%+.4f", d.score_bias)
     << " (test - reference)\n";
  if (!rep.has_labels) {
    if (!rep.labels_unmatched.empty())
      os << "\nlabels: warning: " << rep.labels_unmatched << "\n";
    else
      os << "\nlabels: none (name a labels folder, or keep labels/ beside images/)\n";
    return;
  }
  os << "\nlabels from " << rep.labels_from << ": " << rep.ref_metrics.box.labels
     << " objects (predictions at conf " << rep.options.map_conf << ", as Ultralytics val)\n";
  std::snprintf(line, sizeof(line), "  %-10s %10s %12s", "model", "box mAP50", "box mAP50-95");
  os << line;
  if (rep.ref_metrics.has_pose) {
    std::snprintf(line, sizeof(line), " %11s %13s", "pose mAP50", "pose mAP50-95");
    os << line;
  }
  os << "\n";
  for (const auto& [who, m] : {std::pair<const char*, const TaskMetrics*>{"ref", &rep.ref_metrics},
                               {"test", &rep.test_metrics}}) {
    std::snprintf(line, sizeof(line), "  %-10s %10.4f %12.4f", who, m->box.map50, m->box.map50_95);
    os << line;
    if (m->has_pose) {
      std::snprintf(line, sizeof(line), " %11.4f %13.4f", m->pose.map50, m->pose.map50_95);
      os << line;
    }
    os << "\n";
  }
}

nlohmann::json compare_report_json(const CompareResult& rep) {
  nlohmann::json j;
  j["ref"] = rep.options.ref_model;
  j["test"] = rep.options.test_model;
  j["images"] = rep.images;
  nlohmann::json outs = nlohmann::json::array();
  auto moments = [](const ChannelMoments& m) {
    return nlohmann::json{
        {"mean", num(m.mean)}, {"var", num(m.var)}, {"min", num(m.min)}, {"max", num(m.max)}};
  };
  for (const auto& o : rep.outputs) {
    nlohmann::json e = {{"name", o.name},
                        {"shape", o.shape},
                        {"rel_l2", num(o.error.rel_l2)},
                        {"cosine", num(o.error.cosine)},
                        {"max_abs", num(o.error.max_abs)}};
    if (!o.ref_channels.empty()) {  // the board check
      nlohmann::json ch = nlohmann::json::array();
      for (size_t c = 0; c < o.ref_channels.size(); ++c)
        ch.push_back({{"ref", moments(o.ref_channels[c])}, {"test", moments(o.test_channels[c])}});
      e["channels"] = ch;
      e["diverging_channels"] = o.diverging.first < 0
                                    ? nlohmann::json()
                                    : nlohmann::json::array({o.diverging.first, o.diverging.last});
    }
    outs.push_back(e);
  }
  j["tensors"] = outs;
  if (rep.has_detections) {
    const DetectionDiff& d = rep.detections;
    j["detections"] = {{"output", rep.detection_output},
                       {"conf", rep.options.post.conf},
                       {"nms_iou", rep.options.post.iou},
                       {"match_iou", rep.options.match_iou},
                       {"ref", d.ref_count},
                       {"test", d.test_count},
                       {"matched", d.matched},
                       {"match_rate", d.match_rate ? num(*d.match_rate) : nlohmann::json()},
                       {"extra", d.extra},
                       {"missing", d.missing},
                       {"box_px", summary_json(d.box_px)},
                       {"score_shift", summary_json(d.score_abs)},
                       {"score_bias", num(d.score_bias)}};
    if (rep.pose) j["detections"]["keypoint_px"] = summary_json(d.kpt_px);
    if (!d.match_rate) j["detections"]["notice"] = match_rate_notice(d);
  } else {
    j["detections"] = nullptr;
  }
  if (rep.has_labels) {
    j["labels"] = {{"from", rep.labels_from},
                   {"map_conf", rep.options.map_conf},
                   {"ref", task_json(rep.ref_metrics)},
                   {"test", task_json(rep.test_metrics)}};
  } else {
    j["labels"] = nullptr;
    if (!rep.labels_unmatched.empty()) j["labels_warning"] = rep.labels_unmatched;
  }
  if (!rep.per_image.empty()) {
    j["per_image"] = nlohmann::json::array();
    for (const ImageDetections& im : rep.per_image) {
      nlohmann::json matches = nlohmann::json::array();
      for (const auto& [r, t] : match_detections(im.ref, im.test, rep.options.match_iou))
        matches.push_back({r, t});
      j["per_image"].push_back({{"path", im.path},
                                {"width", im.width},
                                {"height", im.height},
                                {"ref", detections_json(im.ref)},
                                {"test", detections_json(im.test)},
                                {"matches", matches}});
    }
  }
  return j;
}

}  // namespace edgeq
