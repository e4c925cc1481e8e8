#include "zoo/yolo11.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/option_range.h"
#include "zoo/coco_names.h"
#include "zoo/probe.h"
#include "zoo/ultra_builder.h"
#include "zoo/yolo11_blocks.h"
#include "zoo/yolo11_head.h"

namespace edgeq {
namespace {

using zoo::Feat;
using zoo::Scope;

constexpr uint64_t kZooSeed = 0x59304C4F3131ull;  // fixed: the zoo is the same everywhere
// Calibration: synthetic scenes (plus one blank gray frame) at a quarter of the input size,
// which keeps a build well under a second.
constexpr int64_t kProbeScenes = 2;
constexpr int64_t kProbeSize = 160;

// Compound scaling of yolo11.yaml: [depth, width, max_channels].
struct Scale {
  double depth, width;
  int64_t max_channels;
  int64_t ch(int64_t c) const {  // make_divisible(min(c, max) * width, 8)
    return static_cast<int64_t>(std::ceil(std::min(c, max_channels) * width / 8.0)) * 8;
  }
  int rep(int n) const { return n > 1 ? std::max(static_cast<int>(std::lround(n * depth)), 1) : n; }
};

struct ZooEntry {
  std::string name;
  Scale scale;
  bool pose;
};

const std::vector<ZooEntry>& entries() {
  static const std::vector<ZooEntry> e = {
      {"yolo11n", {0.50, 0.25, 1024}, false},
      {"yolo11s", {0.50, 0.50, 1024}, false},
      {"yolo11n-pose", {0.50, 0.25, 1024}, true},
      {"yolo11s-pose", {0.50, 0.50, 1024}, true},
  };
  return e;
}

Scope layer(int i) {
  return {"/model." + std::to_string(i), "model." + std::to_string(i)};
}

// Backbone (0-10) and neck (11-22) of yolo11.yaml; returns the P3, P4, P5 outputs (16, 19, 22).
std::vector<Feat> backbone_and_neck(zoo::UltraBuilder& b, const Scale& sc, const Feat& images) {
  using namespace zoo;
  std::vector<Feat> f(23);
  f[0] = b.conv(layer(0), images, sc.ch(64), 3, 2);
  f[1] = b.conv(layer(1), f[0], sc.ch(128), 3, 2);
  f[2] = c3k2(b, layer(2), f[1], sc.ch(256), sc.rep(2), false, 0.25);
  f[3] = b.conv(layer(3), f[2], sc.ch(256), 3, 2);
  f[4] = c3k2(b, layer(4), f[3], sc.ch(512), sc.rep(2), false, 0.25);
  f[5] = b.conv(layer(5), f[4], sc.ch(512), 3, 2);
  f[6] = c3k2(b, layer(6), f[5], sc.ch(512), sc.rep(2), true, 0.5);
  f[7] = b.conv(layer(7), f[6], sc.ch(1024), 3, 2);
  f[8] = c3k2(b, layer(8), f[7], sc.ch(1024), sc.rep(2), true, 0.5);
  f[9] = sppf(b, layer(9), f[8], sc.ch(1024), 5);
  f[10] = c2psa(b, layer(10), f[9], sc.ch(1024), sc.rep(2));
  f[11] = upsample2x(b, layer(11), f[10]);
  f[12] = b.concat(layer(12), {f[11], f[6]});
  f[13] = c3k2(b, layer(13), f[12], sc.ch(512), sc.rep(2), false, 0.5);
  f[14] = upsample2x(b, layer(14), f[13]);
  f[15] = b.concat(layer(15), {f[14], f[4]});
  f[16] = c3k2(b, layer(16), f[15], sc.ch(256), sc.rep(2), false, 0.5);
  f[17] = b.conv(layer(17), f[16], sc.ch(256), 3, 2);
  f[18] = b.concat(layer(18), {f[17], f[13]});
  f[19] = c3k2(b, layer(19), f[18], sc.ch(512), sc.rep(2), false, 0.5);
  f[20] = b.conv(layer(20), f[19], sc.ch(512), 3, 2);
  f[21] = b.concat(layer(21), {f[20], f[10]});
  f[22] = c3k2(b, layer(22), f[21], sc.ch(1024), sc.rep(2), true, 0.5);
  return {f[16], f[19], f[22]};
}

std::string names_dict(const std::vector<std::string>& names) {
  std::string s = "{";
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ", " : "") + std::to_string(i) + ": '" + names[i] + "'";
  return s + "}";
}

void add_metadata(Graph& g, const ZooEntry& e, const std::vector<std::string>& class_names,
                  int64_t imgsz) {
  std::string title = "YOLO11" + e.name.substr(6);
  g.metadata = {
      {"description", "Synthetic " + title +
                          " from the edgeq zoo: official YOLO11 topology, "
                          "deterministic synthetic weights (not trained)"},
      {"author", "edgeq zoo (topology: Ultralytics YOLO11)"},
      {"version", "edgeq-zoo 1"},
      {"license", "AGPL-3.0 License (https://ultralytics.com/license)"},
      {"docs", "https://docs.ultralytics.com"},
      {"stride", "32"},
      {"task", e.pose ? "pose" : "detect"},
      {"batch", "1"},
      {"imgsz", "[" + std::to_string(imgsz) + ", " + std::to_string(imgsz) + "]"},
      {"names", names_dict(class_names)},
  };
  if (e.pose) g.metadata.emplace_back("kpt_shape", "[17, 3]");
  g.metadata.emplace_back("channels", "3");
  g.metadata.emplace_back(
      "weights_source",
      "synthetic (edgeq zoo): fixed-seed He-normal, normalized per channel on synthetic scenes");
}

}  // namespace

std::vector<std::string> zoo_model_names() {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.push_back(e.name);
  return names;
}

Graph build_yolo11(const std::string& name, int64_t imgsz) {
  const ZooEntry* entry = nullptr;
  for (const auto& e : entries())
    if (e.name == name) entry = &e;
  if (!entry) {
    std::string valid;
    for (const auto& n : zoo_model_names()) valid += (valid.empty() ? "" : ", ") + n;
    fail("unknown zoo model '", name, "' (valid names: ", valid, ")");
  }
  check_option("imgsz", imgsz, ranges::kImgsz);
  EDGEQ_CHECK(imgsz % 32 == 0, "imgsz: ", imgsz, " is not a multiple of 32");
  Graph g;
  g.name = "main_graph";
  g.ir_version = 8;
  g.opsets = {{"", 17}};
  g.producer_name = "edgeq-zoo";
  g.producer_version = "1";
  g.inputs = {{"images", DType::kFloat32, {1, 3, imgsz, imgsz}}};

  zoo::UltraBuilder b(g, kZooSeed);
  // Weights are normalized on a few small synthetic scenes (see zoo/probe.h).
  Feat images{"images", 3, imgsz, imgsz,
              zoo::probe::calibration_batch(kZooSeed, kProbeScenes, kProbeSize)};
  std::vector<Feat> p = backbone_and_neck(b, entry->scale, images);
  zoo::HeadSpec spec;
  std::vector<std::string> class_names =
      entry->pose ? std::vector<std::string>{"person"} : zoo::coco_class_names();
  spec.nc = static_cast<int64_t>(class_names.size());
  spec.nkpt = entry->pose ? 17 : 0;
  spec.blank_probe = kProbeScenes;
  int64_t channels = zoo::yolo_head(b, layer(23), p, {8, 16, 32}, spec, "output0");
  int64_t anchors = 0;
  for (const auto& f : p) anchors += f.h * f.w;
  g.outputs = {{"output0", DType::kFloat32, {1, channels, anchors}}};
  add_metadata(g, *entry, class_names, imgsz);
  return g;
}

}  // namespace edgeq
