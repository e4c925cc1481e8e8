#include "zoo/yolo11_blocks.h"

#include <cmath>

#include "core/error.h"
#include "zoo/probe.h"

namespace edgeq::zoo {
namespace {

// Attention(dim, num_heads, attn_ratio=0.5): qkv conv, per-head q^T k * key_dim^-0.5, softmax,
// v @ attn^T, plus a depthwise positional conv of v, then proj.
Feat attention(UltraBuilder& b, const Scope& s, const Feat& x, int64_t num_heads) {
  const int64_t dim = x.c, head_dim = dim / num_heads, key_dim = head_dim / 2;
  const int64_t n = x.h * x.w;
  Feat qkv = b.conv(s.child("qkv"), x, dim + 2 * key_dim * num_heads, 1, 1, 1, false);
  std::string heads = b.add_node1(
      s, "Reshape",
      {qkv.v, b.int64s(s.path + "/shape_qkv", {1, num_heads, 2 * key_dim + head_dim, n})});
  auto qkv_parts =
      b.add_node(s, "Split",
                 {heads, b.int64s(s.path + "/split_" + std::to_string(key_dim) + "_" +
                                      std::to_string(key_dim) + "_" + std::to_string(head_dim),
                                  {key_dim, key_dim, head_dim})},
                 3, {{"axis", UltraBuilder::attr(int64_t{2})}});
  const std::vector<int64_t> swap_last = {0, 1, 3, 2};
  std::string qt =
      b.add_node1(s, "Transpose", {qkv_parts[0]}, {{"perm", UltraBuilder::attr(swap_last)}});
  std::string scores = b.add_node1(s, "MatMul", {qt, qkv_parts[1]});
  std::string scaled = b.add_node1(
      s, "Mul",
      {scores, b.scalar(s.path + "/scale", static_cast<float>(1.0 / std::sqrt(key_dim)))});
  std::string attn =
      b.add_node1(s, "Softmax", {scaled}, {{"axis", UltraBuilder::attr(int64_t{-1})}});
  std::string attn_t =
      b.add_node1(s, "Transpose", {attn}, {{"perm", UltraBuilder::attr(swap_last)}});
  std::string mixed = b.add_node1(s, "MatMul", {qkv_parts[2], attn_t});
  std::string bchw = b.int64s(s.path + "/shape_bchw", {1, dim, x.h, x.w});
  auto [mixed_probe, v_probe] = probe::attention(qkv.probe, num_heads, key_dim, head_dim,
                                                 static_cast<float>(1.0 / std::sqrt(key_dim)));
  Feat y = x, v = x;
  y.probe = mixed_probe;
  v.probe = v_probe;
  y.v = b.add_node1(s, "Reshape", {mixed, bchw});
  v.v = b.add_node1(s, "Reshape", {qkv_parts[2], bchw});
  Feat pe = b.conv(s.child("pe"), v, dim, 3, 1, static_cast<int>(dim), false);
  return b.conv(s.child("proj"), b.add(s, y, pe), dim, 1, 1, 1, false);
}

// PSABlock(c, attn_ratio=0.5, num_heads): x + attn(x), then + ffn (Conv c->2c, Conv 2c->c linear).
Feat psa_block(UltraBuilder& b, const Scope& s, const Feat& x, int64_t num_heads) {
  Feat y = b.add(s, x, attention(b, s.child("attn"), x, num_heads));
  Scope ffn = s.child("ffn");
  Feat f = b.conv(ffn.seq(0), y, 2 * x.c, 1);
  f = b.conv(ffn.seq(1), f, x.c, 1, 1, 1, false);
  return b.add(s, y, f);
}

}  // namespace

Feat bottleneck(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, bool shortcut, int k1,
                int k2, double e) {
  int64_t c_ = static_cast<int64_t>(c2 * e);
  Feat y = b.conv(s.child("cv1"), x, c_, k1);
  y = b.conv(s.child("cv2"), y, c2, k2);
  return shortcut && x.c == c2 ? b.add(s, x, y) : y;
}

Feat c3k(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, int n, bool shortcut) {
  int64_t c_ = static_cast<int64_t>(c2 * 0.5);
  Feat y = b.conv(s.child("cv1"), x, c_);
  Scope m = s.child("m");
  for (int i = 0; i < n; ++i) y = bottleneck(b, m.seq(i), y, c_, shortcut, 3, 3, 1.0);
  Feat side = b.conv(s.child("cv2"), x, c_);
  return b.conv(s.child("cv3"), b.concat(s, {y, side}), c2);
}

Feat c3k2(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, int n, bool use_c3k,
          double e) {
  int64_t c = static_cast<int64_t>(c2 * e);
  Feat y = b.conv(s.child("cv1"), x, 2 * c);
  std::vector<Feat> ys = b.split(s, y, {c, c});
  for (int i = 0; i < n; ++i) {
    Scope mi = s.item("m", i);
    ys.push_back(use_c3k ? c3k(b, mi, ys.back(), c, 2, true)
                         : bottleneck(b, mi, ys.back(), c, true, 3, 3, 0.5));
  }
  return b.conv(s.child("cv2"), b.concat(s, ys), c2);
}

Feat sppf(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, int k) {
  Feat y = b.conv(s.child("cv1"), x, x.c / 2);
  std::vector<Feat> taps = {y};
  const int64_t p = k / 2;
  for (int i = 0; i < 3; ++i) {
    Scope m = s.call(i == 0 ? "m" : "m_" + std::to_string(i));
    Feat pooled = taps.back();
    pooled.probe = probe::maxpool(taps.back().probe, k);
    pooled.v = b.add_node1(m, "MaxPool", {taps.back().v},
                           {{"ceil_mode", UltraBuilder::attr(int64_t{0})},
                            {"dilations", UltraBuilder::attr(std::vector<int64_t>{1, 1})},
                            {"kernel_shape", UltraBuilder::attr(std::vector<int64_t>{k, k})},
                            {"pads", UltraBuilder::attr(std::vector<int64_t>{p, p, p, p})},
                            {"strides", UltraBuilder::attr(std::vector<int64_t>{1, 1})}});
    taps.push_back(pooled);
  }
  return b.conv(s.child("cv2"), b.concat(s, taps), c2);
}

Feat c2psa(UltraBuilder& b, const Scope& s, const Feat& x, int64_t c2, int n) {
  EDGEQ_CHECK(x.c == c2, "zoo: ", s.path, ": C2PSA needs c1 == c2");
  int64_t c = x.c / 2;
  Feat y = b.conv(s.child("cv1"), x, 2 * c);
  std::vector<Feat> ab = b.split(s, y, {c, c});
  Scope m = s.child("m");
  Feat t = ab[1];
  for (int i = 0; i < n; ++i) t = psa_block(b, m.seq(i), t, c / 64);
  return b.conv(s.child("cv2"), b.concat(s, {ab[0], t}), c2);
}

Feat upsample2x(UltraBuilder& b, const Scope& s, const Feat& x) {
  std::string scales =
      b.constant(s.path + "/scales", Tensor::from_vector<float>({4}, {1.f, 1.f, 2.f, 2.f}));
  Feat y = x;
  y.v = b.add_node1(
      s, "Resize", {x.v, "", scales},
      {{"coordinate_transformation_mode", UltraBuilder::attr(std::string("asymmetric"))},
       {"cubic_coeff_a", UltraBuilder::attr(-0.75f)},
       {"mode", UltraBuilder::attr(std::string("nearest"))},
       {"nearest_mode", UltraBuilder::attr(std::string("floor"))}});
  y.h *= 2;
  y.w *= 2;
  y.probe = probe::upsample2x(x.probe);
  return y;
}

}  // namespace edgeq::zoo
