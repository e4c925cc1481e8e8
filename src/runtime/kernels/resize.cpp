// Resize (opset 10+) and Upsample: nearest on any axes with every coordinate transformation
// and nearest rounding mode, and linear (bilinear on the two innermost axes). NHWC-aware.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

// Input coordinate of output coordinate `x` along an axis (ONNX coordinate_transformation_mode).
// `out_len` is the output's length; `resized_len` the resized length as ONNX's reference defines
// it: the requested size, or in_len * scale when scales are given (not rounded down).
float original_coord(const std::string& mode, float x, float scale, int64_t in_len, int64_t out_len,
                     float resized_len, const Node& node) {
  if (mode == "half_pixel") return (x + 0.5f) / scale - 0.5f;
  if (mode == "asymmetric") return x / scale;
  if (mode == "pytorch_half_pixel") return resized_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5f) / scale;
  if (mode == "align_corners")
    return resized_len == 1 ? 0.0f : x * static_cast<float>(in_len - 1) / (resized_len - 1);
  if (mode == "half_pixel_symmetric") {
    const float adjustment = static_cast<float>(out_len) / (scale * static_cast<float>(in_len));
    const float center = static_cast<float>(in_len) / 2.0f;
    const float offset = center * (1.0f - adjustment);
    return offset + (x + 0.5f) / scale - 0.5f;
  }
  fail(node.describe(), ": coordinate_transformation_mode '", mode, "' not supported");
}

int64_t nearest_index(const std::string& mode, float x, int64_t in_len, const Node& node) {
  int64_t i;
  if (mode == "round_prefer_floor") {
    i = x == std::floor(x) + 0.5f ? static_cast<int64_t>(std::floor(x))
                                  : static_cast<int64_t>(std::round(x));
  } else if (mode == "round_prefer_ceil") {
    i = static_cast<int64_t>(std::round(x));
  } else if (mode == "floor") {
    i = static_cast<int64_t>(std::floor(x));
  } else if (mode == "ceil") {
    i = static_cast<int64_t>(std::ceil(x));
  } else {
    fail(node.describe(), ": nearest_mode '", mode, "' not supported");
  }
  return std::clamp<int64_t>(i, 0, in_len - 1);
}

// Linear interpolation taps along one axis: out = (1 - w) * in[i0] + w * in[i1].
struct LinearTap {
  int64_t i0, i1;
  float w;
};

template <typename T>
void gather_nearest(const T* x, T* y, const Shape& out_shape, const Shape& in_shape,
                    const std::vector<std::vector<int64_t>>& tables, bool last_identity) {
  const int rank = static_cast<int>(out_shape.size());
  const int64_t inner = out_shape[rank - 1];
  const int64_t outer = product(out_shape, 0, rank - 1);
  const std::vector<int64_t> istr = contiguous_strides(in_shape);
  const std::vector<int64_t> ostr =
      contiguous_strides(Shape(out_shape.begin(), out_shape.end() - 1));
  const std::vector<int64_t>& last = tables[rank - 1];
#pragma omp parallel for if (outer * inner > kParallelNumel)
  for (int64_t o = 0; o < outer; ++o) {
    int64_t rem = o, off = 0;
    for (int d = 0; d < rank - 1; ++d) {
      const int64_t k = rem / ostr[d];
      rem -= k * ostr[d];
      off += tables[d][k] * istr[d];
    }
    T* yr = y + o * inner;
    const T* xr = x + off;
    if (last_identity) {
      std::memcpy(yr, xr, inner * sizeof(T));
    } else {
      for (int64_t j = 0; j < inner; ++j) yr[j] = xr[last[j]];
    }
  }
}

class ResizeKernel : public Kernel {
 public:
  ResizeKernel(const KernelInit& init, bool upsample) : node_(init.node) {
    const ValueDesc& x = init.in(0);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    EDGEQ_CHECK(rank >= 1, node_.describe(), ": input must have rank >= 1");
    mode_ = node_.attr_string("mode", "nearest");
    if (mode_ == "bilinear") mode_ = "linear";
    EDGEQ_CHECK(mode_ == "nearest" || mode_ == "linear", node_.describe(), ": mode '", mode_,
                "' not supported");
    const bool legacy = upsample || init.opset < 11;
    coord_mode_ =
        legacy ? "asymmetric" : node_.attr_string("coordinate_transformation_mode", "half_pixel");
    nearest_mode_ = legacy ? "floor" : node_.attr_string("nearest_mode", "round_prefer_floor");
    EDGEQ_CHECK(coord_mode_ != "tf_crop_and_resize", node_.describe(),
                ": coordinate_transformation_mode 'tf_crop_and_resize' not supported");
    EDGEQ_CHECK(node_.attr_int("antialias", 0) == 0, node_.describe(), ": antialias not supported");

    // Scales, output sizes and resized lengths (see original_coord) for every axis.
    std::vector<float> scales(rank, 1.0f);
    Shape out = x.shape;
    bool from_scales = true;
    std::vector<int64_t> axes = node_.attr_ints("axes");
    if (axes.empty())
      for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    for (int64_t& a : axes) a = normalize_axis(a, rank, node_);
    if (legacy) {
      std::vector<float> s =
          upsample && init.opset < 9 ? node_.attr_floats("scales") : init.constant(1).to_floats();
      EDGEQ_CHECK(static_cast<int64_t>(s.size()) == rank, node_.describe(), ": ", s.size(),
                  " scales for rank ", rank);
      scales = s;
      for (int64_t i = 0; i < rank; ++i)
        out[i] = static_cast<int64_t>(std::floor(static_cast<float>(x.shape[i]) * s[i]));
    } else if (init.has_input(3) && init.constant(3).numel() > 0) {
      const std::vector<int64_t> sizes = init.constant_ints(3);
      from_scales = false;
      EDGEQ_CHECK(sizes.size() == axes.size(), node_.describe(), ": ", sizes.size(), " sizes for ",
                  axes.size(), " axes");
      const std::string policy = node_.attr_string("keep_aspect_ratio_policy", "stretch");
      if (policy == "stretch") {
        for (size_t i = 0; i < axes.size(); ++i) {
          out[axes[i]] = sizes[i];
          scales[axes[i]] = static_cast<float>(sizes[i]) / static_cast<float>(x.shape[axes[i]]);
        }
      } else {
        EDGEQ_CHECK(policy == "not_larger" || policy == "not_smaller", node_.describe(),
                    ": keep_aspect_ratio_policy '", policy, "' not supported");
        float s = policy == "not_larger" ? 1e30f : 0.0f;
        for (size_t i = 0; i < axes.size(); ++i) {
          const float r = static_cast<float>(sizes[i]) / static_cast<float>(x.shape[axes[i]]);
          s = policy == "not_larger" ? std::min(s, r) : std::max(s, r);
        }
        for (int64_t a : axes) {
          scales[a] = s;
          out[a] = static_cast<int64_t>(std::round(s * static_cast<float>(x.shape[a])));
        }
      }
    } else {
      EDGEQ_CHECK(init.has_input(2), node_.describe(), ": needs scales or sizes");
      const std::vector<float> s = init.constant(2).to_floats();
      EDGEQ_CHECK(s.size() == axes.size(), node_.describe(), ": ", s.size(), " scales for ",
                  axes.size(), " axes");
      for (size_t i = 0; i < axes.size(); ++i) {
        scales[axes[i]] = s[i];
        out[axes[i]] =
            static_cast<int64_t>(std::floor(static_cast<float>(x.shape[axes[i]]) * s[i]));
      }
    }
    for (int64_t i = 0; i < rank; ++i)
      EDGEQ_CHECK(scales[i] > 0 && out[i] >= 0, node_.describe(), ": invalid scale ", scales[i],
                  " on axis ", i);
    std::vector<float> resized(rank);
    for (int64_t i = 0; i < rank; ++i)
      resized[i] =
          from_scales ? static_cast<float>(x.shape[i]) * scales[i] : static_cast<float>(out[i]);

    nhwc_ = init.layout == Layout::kNHWC && rank == 4;
    if (mode_ == "linear") {
      EDGEQ_CHECK(x.dtype == DType::kFloat32, node_.describe(), ": linear mode needs float32");
      EDGEQ_CHECK(rank >= 2, node_.describe(), ": linear mode needs rank >= 2");
      for (int64_t i = 0; i < rank - 2; ++i)
        EDGEQ_CHECK(out[i] == x.shape[i], node_.describe(),
                    ": linear mode resizes only the two innermost axes");
      taps_h_ = linear_taps(x.shape[rank - 2], out[rank - 2], scales[rank - 2], resized[rank - 2]);
      taps_w_ = linear_taps(x.shape[rank - 1], out[rank - 1], scales[rank - 1], resized[rank - 1]);
    } else {
      // Nearest tables per logical axis, then reordered to physical axes.
      std::vector<std::vector<int64_t>> logical(rank);
      for (int64_t a = 0; a < rank; ++a) {
        for (int64_t o = 0; o < out[a]; ++o) {
          const float c = original_coord(coord_mode_, static_cast<float>(o), scales[a], x.shape[a],
                                         out[a], resized[a], node_);
          logical[a].push_back(nearest_index(nearest_mode_, c, x.shape[a], node_));
        }
      }
      tables_.resize(rank);
      for (int64_t p = 0; p < rank; ++p) {
        int64_t l = p;
        for (int64_t q = 0; q < rank; ++q)
          if (physical_axis(q, rank, nhwc_ ? Layout::kNHWC : Layout::kPlain) == p) l = q;
        tables_[p] = logical[l];
      }
    }
    outputs.push_back({x.dtype, out, nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    const Tensor& x = *in[0];
    Tensor& y = *out[0];
    if (y.numel() == 0) return;
    if (mode_ == "linear") {
      if (nhwc_)
        linear_nhwc(x, y);
      else
        linear_plain(x, y);
      return;
    }
    const int rank = y.rank();
    const std::vector<int64_t>& last = tables_[rank - 1];
    bool identity = static_cast<int64_t>(last.size()) == x.dim(-1);
    for (size_t j = 0; identity && j < last.size(); ++j)
      identity = last[j] == static_cast<int64_t>(j);
    switch (dtype_size(x.dtype())) {
      case 1:
        return gather_nearest(x.data<uint8_t>(), y.data<uint8_t>(), y.shape(), x.shape(), tables_,
                              identity);
      case 2:
        return gather_nearest(x.data<uint16_t>(), y.data<uint16_t>(), y.shape(), x.shape(), tables_,
                              identity);
      case 4:
        return gather_nearest(x.data<uint32_t>(), y.data<uint32_t>(), y.shape(), x.shape(), tables_,
                              identity);
      case 8:
        return gather_nearest(x.data<uint64_t>(), y.data<uint64_t>(), y.shape(), x.shape(), tables_,
                              identity);
      default:
        fail(node_.describe(), ": unsupported element type ", dtype_name(x.dtype()));
    }
  }

 private:
  std::vector<LinearTap> linear_taps(int64_t in_len, int64_t out_len, float scale,
                                     float resized_len) const {
    std::vector<LinearTap> taps(out_len);
    for (int64_t o = 0; o < out_len; ++o) {
      float c = original_coord(coord_mode_, static_cast<float>(o), scale, in_len, out_len,
                               resized_len, node_);
      c = std::clamp(c, 0.0f, static_cast<float>(in_len - 1));
      const int64_t i0 = std::min<int64_t>(static_cast<int64_t>(c), in_len - 1);
      const int64_t i1 = std::min<int64_t>(i0 + 1, in_len - 1);
      taps[o] = {i0, i1, i1 == i0 ? 0.0f : c - static_cast<float>(i0)};
    }
    return taps;
  }

  // Plain layout: x [..., H, W], one plane at a time.
  void linear_plain(const Tensor& x, Tensor& y) const {
    const int64_t H = x.dim(-2), W = x.dim(-1), OH = y.dim(-2), OW = y.dim(-1);
    const int64_t planes = (H * W != 0) ? x.numel() / (H * W) : 0;
    const float* xs = x.data<float>();
    float* ys = y.data<float>();
#pragma omp parallel for if (planes * OH * OW > kParallelNumel)
    for (int64_t p = 0; p < planes; ++p) {
      const float* xp = xs + p * H * W;
      float* yp = ys + p * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        const LinearTap& th = taps_h_[oh];
        const float* r0 = xp + th.i0 * W;
        const float* r1 = xp + th.i1 * W;
        for (int64_t ow = 0; ow < OW; ++ow) {
          const LinearTap& tw = taps_w_[ow];
          const float top = r0[tw.i0] + tw.w * (r0[tw.i1] - r0[tw.i0]);
          const float bot = r1[tw.i0] + tw.w * (r1[tw.i1] - r1[tw.i0]);
          yp[oh * OW + ow] = top + th.w * (bot - top);
        }
      }
    }
  }

  // NHWC: x physical [N,H,W,C]; the channel loop is innermost.
  void linear_nhwc(const Tensor& x, Tensor& y) const {
    const int64_t N = x.dim(0), H = x.dim(1), W = x.dim(2), C = x.dim(3);
    const int64_t OH = y.dim(1), OW = y.dim(2);
    const float* xs = x.data<float>();
    float* ys = y.data<float>();
#pragma omp parallel for if (N * OH * OW * C > kParallelNumel)
    for (int64_t r = 0; r < N * OH; ++r) {
      const int64_t n = r / OH, oh = r % OH;
      const LinearTap& th = taps_h_[oh];
      const float* r0 = xs + (n * H + th.i0) * W * C;
      const float* r1 = xs + (n * H + th.i1) * W * C;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const LinearTap& tw = taps_w_[ow];
        const float *a = r0 + tw.i0 * C, *b = r0 + tw.i1 * C;
        const float *c = r1 + tw.i0 * C, *d = r1 + tw.i1 * C;
        float* yv = ys + ((n * OH + oh) * OW + ow) * C;
        const float wh = th.w, ww = tw.w;
#pragma omp simd
        for (int64_t k = 0; k < C; ++k) {
          const float top = a[k] + ww * (b[k] - a[k]);
          const float bot = c[k] + ww * (d[k] - c[k]);
          yv[k] = top + wh * (bot - top);
        }
      }
    }
  }

  Node node_;
  std::string mode_, coord_mode_, nearest_mode_;
  bool nhwc_ = false;
  std::vector<std::vector<int64_t>>
      tables_;  // nearest: input index per output index, physical axes
  std::vector<LinearTap> taps_h_, taps_w_;
};

}  // namespace

void register_resize_kernels() {
  register_kernel("", "Resize",
                  [](const KernelInit& i) { return std::make_unique<ResizeKernel>(i, false); });
  register_kernel("", "Upsample",
                  [](const KernelInit& i) { return std::make_unique<ResizeKernel>(i, true); });
}

}  // namespace edgeq
