#include "zoo/yolo11_head.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace edgeq::zoo {
namespace {

// Synthetic head outputs, per channel (mean, std) over typical inputs. Class logits centre on
// Ultralytics' bias prior log(5 / nc / (640 / stride)^2) (about -7 at stride 8 for one class);
// their spread is chosen so that, for Gaussian logits, about kPairsAboveThreshold anchor-class
// pairs of the stride-32 level would score above 0.25 (real images give a few detections), and
// a blank gray frame scores nothing (see yolo_head). DFL bins lean to short distances (a few
// grid cells); keypoints stay near their anchor.
const double kDflBinSlope = -0.25;
const double kBoxStd = 1.0;
const double kKptXyStd = 0.5;
const double kKptVisMean = 0.5, kKptVisStd = 1.5;
const double kScoreThreshold = 0.25;
const double kPairsAboveThreshold = 0.1;

double class_prior(int64_t nc, int64_t stride) {
  return std::log(5.0 / nc / std::pow(640.0 / stride, 2));
}

// z with P(N(0,1) > z) = p, by bisection.
double normal_upper_quantile(double p) {
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

ConvTarget box_target(int64_t reg_max) {
  ConvTarget t;
  for (int side = 0; side < 4; ++side)
    for (int64_t j = 0; j < reg_max; ++j) {
      t.mean.push_back(kDflBinSlope * j);
      t.std.push_back(kBoxStd);
    }
  return t;
}

ConvTarget class_target(int64_t nc, int64_t stride, double spread) {
  ConvTarget t;
  t.mean.assign(nc, class_prior(nc, stride));
  t.std.assign(nc, spread);
  return t;
}

ConvTarget keypoint_target(int64_t nkpt, int64_t kpt_dim) {
  ConvTarget t;
  for (int64_t k = 0; k < nkpt; ++k)
    for (int64_t d = 0; d < kpt_dim; ++d) {
      bool vis = d == 2;
      t.mean.push_back(vis ? kKptVisMean : 0.0);
      t.std.push_back(vis ? kKptVisStd : kKptXyStd);
    }
  return t;
}

// Conv(x, c, 3), Conv(c, c, 3), nn.Conv2d(c, cout, 1): the box and keypoint branch shape.
Feat two_conv_branch(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c, int64_t cout,
                     const ConvTarget& last) {
  Feat y = b.conv(s.seq(0), x, c, 3);
  y = b.conv(s.seq(1), y, c, 3);
  return b.conv2d(s.seq(2), y, cout, 1, 1, 1, last);
}

// Sequential(DWConv(x, x, 3), Conv(x, c3, 1)), Sequential(DWConv(c3, c3, 3), Conv(c3, c3, 1)),
// nn.Conv2d(c3, nc, 1): the class branch of YOLO11 (non-legacy Detect).
Feat class_branch(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c3, int64_t nc,
                  const ConvTarget& last) {
  Feat y = x;
  for (int i = 0; i < 2; ++i) {
    Scope blk = s.seq(i);
    y = b.conv(blk.seq(0), y, y.c, 3, 1, static_cast<int>(y.c));
    y = b.conv(blk.seq(1), y, c3, 1);
  }
  return b.conv2d(s.seq(2), y, nc, 1, 1, 1, last);
}

// Lowers the bias of each class channel whose logit on the blank calibration frame exceeds
// `ceiling` anywhere (the border, where zero padding meets gray, is where it does), so that a
// gray frame gives no detections, as with a trained model.
void quiet_on_blank(UltraBuilder& b, const Scope& conv, const Feat& logits, int64_t blank,
                    double ceiling) {
  Tensor& bias = b.graph().initializers.at(conv.param + ".bias");
  const int64_t plane = logits.probe.dim(2) * logits.probe.dim(3);
  for (int64_t c = 0; c < logits.c; ++c) {
    const float* p = logits.probe.data<float>() + (blank * logits.c + c) * plane;
    double top = *std::max_element(p, p + plane);
    if (top > ceiling) bias.data<float>()[c] -= static_cast<float>(top - ceiling);
  }
}

// Flattens [1, C, H, W] to [1, C, H*W] with the shape constant the export uses.
std::string flatten(UltraBuilder& b, const Scope& s, const Feat& x) {
  return b.add_node1(
      s, "Reshape",
      {x.v, b.int64s(s.path + "/shape_1_" + std::to_string(x.c) + "_-1", {1, x.c, -1})});
}

std::string concat_axis(UltraBuilder& b, const Scope& s, const std::vector<std::string>& xs,
                        int64_t axis) {
  return b.add_node1(s, "Concat", xs, {{"axis", UltraBuilder::attr(axis)}});
}

std::string slice_axis2(UltraBuilder& b, const Scope& s, const std::string& x, int64_t start,
                        int64_t end) {
  std::string tag = s.path + "/slice_" + std::to_string(start) + "_" + std::to_string(end);
  return b.add_node1(
      s, "Slice",
      {x, b.int64s(tag + "/starts", {start}), b.int64s(tag + "/ends", {end}),
       b.int64s(s.path + "/slice_axes2", {2}), b.int64s(s.path + "/slice_steps1", {1})});
}

}  // namespace

int64_t yolo_head(UltraBuilder& b, const Scope& s, const std::vector<Feat>& feats,
                  const std::vector<int64_t>& strides, const HeadSpec& spec,
                  const std::string& output) {
  EDGEQ_CHECK(feats.size() == strides.size() && !feats.empty(),
              "zoo: head needs one stride per level");
  const int64_t nl = static_cast<int64_t>(feats.size());
  const int64_t ch0 = feats[0].c;
  const int64_t c2 = std::max<int64_t>({16, ch0 / 4, spec.reg_max * 4});
  const int64_t c3 = std::max<int64_t>(ch0, std::min<int64_t>(spec.nc, 100));
  const int64_t nk = spec.nkpt * spec.kpt_dim;
  const int64_t no = spec.nc + 4 * spec.reg_max;

  // Anchor centres (x + 0.5, y + 0.5) per cell and the stride of each anchor, levels in order.
  std::vector<float> ax, ay, st;
  for (int64_t l = 0; l < nl; ++l)
    for (int64_t y = 0; y < feats[l].h; ++y)
      for (int64_t x = 0; x < feats[l].w; ++x) {
        ax.push_back(x + 0.5f);
        ay.push_back(y + 0.5f);
        st.push_back(static_cast<float>(strides[l]));
      }
  const int64_t na = static_cast<int64_t>(ax.size());

  // Pose: keypoint branches first, as Pose.forward runs them before Detect.forward.
  std::string kpt_raw;
  if (nk > 0) {
    const int64_t c4 = std::max(ch0 / 4, nk);
    std::vector<std::string> flat;
    for (int64_t l = 0; l < nl; ++l) {
      Feat k = two_conv_branch(b, s.item("cv4", static_cast<int>(l)), feats[l], c4, nk,
                               keypoint_target(spec.nkpt, spec.kpt_dim));
      flat.push_back(flatten(b, s, k));
    }
    kpt_raw = concat_axis(b, s, flat, -1);
  }

  // Per level: box (4 x reg_max DFL logits) and class logits, concatenated on channels.
  const Feat& coarsest = feats.back();
  const double logit_threshold = std::log(kScoreThreshold / (1 - kScoreThreshold));
  const double class_spread =
      (logit_threshold - class_prior(spec.nc, strides.back())) /
      normal_upper_quantile(kPairsAboveThreshold / (spec.nc * coarsest.h * coarsest.w));
  std::vector<std::string> levels;
  for (int64_t l = 0; l < nl; ++l) {
    Feat bx = two_conv_branch(b, s.item("cv2", static_cast<int>(l)), feats[l], c2, 4 * spec.reg_max,
                              box_target(spec.reg_max));
    Scope cls_scope = s.item("cv3", static_cast<int>(l));
    Feat cl = class_branch(b, cls_scope, feats[l], c3, spec.nc,
                           class_target(spec.nc, strides[l], class_spread));
    if (spec.blank_probe >= 0)
      quiet_on_blank(b, cls_scope.seq(2), cl, spec.blank_probe,
                     0.5 * (class_prior(spec.nc, strides[l]) + logit_threshold));
    levels.push_back(concat_axis(b, s, {bx.v, cl.v}, 1));
  }
  // The flattening Reshapes come after all per-level Concats, as in the export.
  std::vector<std::string> flat;
  for (int64_t l = 0; l < nl; ++l)
    flat.push_back(flatten(b, s, {levels[l], no, feats[l].h, feats[l].w, Tensor()}));
  std::string raw = concat_axis(b, s, flat, 2);
  auto box_cls = b.add_node(s, "Split",
                            {raw, b.int64s(s.path + "/split_" + std::to_string(4 * spec.reg_max) +
                                               "_" + std::to_string(spec.nc),
                                           {4 * spec.reg_max, spec.nc})},
                            2, {{"axis", UltraBuilder::attr(int64_t{1})}});

  // DFL: softmax over the reg_max bins of each side, expectation by a fixed 1x1 conv (0..15).
  Scope dfl = s.child("dfl");
  std::string bins = b.add_node1(
      dfl, "Reshape", {box_cls[0], b.int64s(dfl.path + "/shape_b4ra", {1, 4, spec.reg_max, na})});
  std::string bins_t = b.add_node1(
      dfl, "Transpose", {bins}, {{"perm", UltraBuilder::attr(std::vector<int64_t>{0, 2, 1, 3})}});
  std::string probs =
      b.add_node1(dfl, "Softmax", {bins_t}, {{"axis", UltraBuilder::attr(int64_t{1})}});
  std::vector<float> ramp(spec.reg_max);
  for (int64_t j = 0; j < spec.reg_max; ++j) ramp[j] = static_cast<float>(j);
  std::string dfl_w = b.constant(dfl.child("conv").param + ".weight",
                                 Tensor::from_vector<float>({1, spec.reg_max, 1, 1}, ramp));
  std::string dist4 = b.add_node1(dfl.child("conv"), "Conv", {probs, dfl_w},
                                  {{"dilations", UltraBuilder::attr(std::vector<int64_t>{1, 1})},
                                   {"group", UltraBuilder::attr(int64_t{1})},
                                   {"kernel_shape", UltraBuilder::attr(std::vector<int64_t>{1, 1})},
                                   {"pads", UltraBuilder::attr(std::vector<int64_t>{0, 0, 0, 0})},
                                   {"strides", UltraBuilder::attr(std::vector<int64_t>{1, 1})}});
  std::string dist =
      b.add_node1(dfl, "Reshape", {dist4, b.int64s(dfl.path + "/shape_b4a", {1, 4, na})});

  // dist2bbox (xywh): x1y1 = anchor - lt, x2y2 = anchor + rb, centre and size, then x stride.
  std::vector<float> anchors = ax;
  anchors.insert(anchors.end(), ay.begin(), ay.end());
  std::string anc =
      b.constant(s.path + "/anchors", Tensor::from_vector<float>({1, 2, na}, anchors));
  std::string strd = b.constant(s.path + "/strides", Tensor::from_vector<float>({1, na}, st));
  std::string two = b.scalar(s.path + "/two", 2.f);
  auto lt_rb = b.add_node(s, "Split", {dist, b.int64s(s.path + "/split_2_2", {2, 2})}, 2,
                          {{"axis", UltraBuilder::attr(int64_t{1})}});
  std::string x1y1 = b.add_node1(s, "Sub", {anc, lt_rb[0]});
  std::string x2y2 = b.add_node1(s, "Add", {anc, lt_rb[1]});
  std::string sum = b.add_node1(s, "Add", {x1y1, x2y2});
  std::string cxy = b.add_node1(s, "Div", {sum, two});
  std::string wh = b.add_node1(s, "Sub", {x2y2, x1y1});
  std::string xywh = concat_axis(b, s, {cxy, wh}, 1);
  std::string boxes = b.add_node1(s, "Mul", {xywh, strd});
  std::string scores = b.add_node1(s, "Sigmoid", {box_cls[1]});
  std::string det = concat_axis(b, s, {boxes, scores}, 1);

  std::string result = det;
  if (nk > 0) {
    // kpts_decode: view [1, nkpt, kpt_dim, A]; xy = (raw * 2 + anchor - 0.5) * stride.
    std::vector<float> grid;
    for (float v : ax) grid.push_back(v - 0.5f);
    for (float v : ay) grid.push_back(v - 0.5f);
    std::string anc_half =
        b.constant(s.path + "/anchors_minus_half", Tensor::from_vector<float>({2, na}, grid));
    std::string k4 =
        b.add_node1(s, "Reshape",
                    {kpt_raw, b.int64s(s.path + "/shape_1_" + std::to_string(spec.nkpt) + "_" +
                                           std::to_string(spec.kpt_dim) + "_" + std::to_string(na),
                                       {1, spec.nkpt, spec.kpt_dim, na})});
    std::string xy = slice_axis2(b, s, k4, 0, 2);
    xy = b.add_node1(s, "Mul", {xy, two});
    xy = b.add_node1(s, "Add", {xy, anc_half});
    xy = b.add_node1(s, "Mul", {xy, strd});
    std::string kpts = xy;
    if (spec.kpt_dim == 3) {
      std::string vis = b.add_node1(s, "Sigmoid", {slice_axis2(b, s, k4, 2, 3)});
      kpts = concat_axis(b, s, {xy, vis}, 2);
    }
    kpts = b.add_node1(
        s, "Reshape",
        {kpts, b.int64s(s.path + "/shape_1_" + std::to_string(nk) + "_" + std::to_string(na),
                        {1, nk, na})});
    result = concat_axis(b, s, {det, kpts}, 1);
  }
  // The export names the last value of the graph after the model output.
  Node& last = b.graph().nodes.back();
  EDGEQ_CHECK(last.outputs.size() == 1 && last.outputs[0] == result,
              "zoo: head output is not the last node");
  last.outputs[0] = output;
  return 4 + spec.nc + nk;
}

}  // namespace edgeq::zoo
