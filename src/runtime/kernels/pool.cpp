// Pooling: MaxPool and AveragePool over 1-D or 2-D windows (with strides, pads, dilations,
// ceil_mode, auto_pad), plain NCHW or NHWC; GlobalAveragePool and GlobalMaxPool (plain).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/simd.h"
#include "runtime/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/registry.h"

namespace edgeq {
namespace {

// Window geometry along one spatial axis.
struct Axis {
  int64_t in = 1, out = 1, k = 1, s = 1, d = 1, p0 = 0, p1 = 0;
};

// Fills a.out and the pads from the ONNX attribute rules.
void resolve_axis(Axis& a, const std::string& auto_pad, bool ceil_mode, const Node& node) {
  const int64_t eff = (a.k - 1) * a.d + 1;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    a.out = (a.in + a.s - 1) / a.s;
    const int64_t total = std::max<int64_t>(0, (a.out - 1) * a.s + eff - a.in);
    a.p0 = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    a.p1 = total - a.p0;
  } else if (auto_pad == "VALID") {
    a.p0 = a.p1 = 0;
    a.out = a.in >= eff ? (a.in - eff) / a.s + 1 : 0;
  } else {
    EDGEQ_CHECK(auto_pad == "NOTSET" || auto_pad.empty(), node.describe(), ": unknown auto_pad '",
                auto_pad, "'");
    const int64_t span = a.in + a.p0 + a.p1 - eff;
    EDGEQ_CHECK(span >= 0, node.describe(), ": pooling window larger than padded input");
    a.out = (ceil_mode ? (span + a.s - 1) / a.s : span / a.s) + 1;
    // A window that would start inside the end padding is dropped (as PyTorch and ORT do).
    if (ceil_mode && (a.out - 1) * a.s >= a.in + a.p0) --a.out;
  }
  EDGEQ_CHECK(a.out > 0, node.describe(), ": pooling output would be empty");
}

struct PoolGeom {
  int64_t n = 1, c = 1;
  Axis h, w;
};

PoolGeom read_geom(const KernelInit& init, Shape& out_shape) {
  const Node& node = init.node;
  const ValueDesc& x = init.in(0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  EDGEQ_CHECK(rank == 3 || rank == 4, node.describe(),
              ": only 1-D and 2-D pooling supported, input is ", shape_str(x.shape));
  const int64_t sp = rank - 2;
  std::vector<int64_t> k = node.attr_ints("kernel_shape");
  EDGEQ_CHECK(static_cast<int64_t>(k.size()) == sp, node.describe(), ": kernel_shape must have ",
              sp, " entries");
  std::vector<int64_t> s = node.attr_ints("strides", std::vector<int64_t>(sp, 1));
  std::vector<int64_t> d = node.attr_ints("dilations", std::vector<int64_t>(sp, 1));
  std::vector<int64_t> p = node.attr_ints("pads", std::vector<int64_t>(2 * sp, 0));
  EDGEQ_CHECK(static_cast<int64_t>(s.size()) == sp && static_cast<int64_t>(d.size()) == sp &&
                  static_cast<int64_t>(p.size()) == 2 * sp,
              node.describe(), ": strides/dilations/pads have the wrong length");
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  const bool ceil_mode = node.attr_int("ceil_mode", 0) != 0;
  PoolGeom g;
  g.n = x.shape[0];
  g.c = x.shape[1];
  std::vector<Axis*> axes = sp == 2 ? std::vector<Axis*>{&g.h, &g.w} : std::vector<Axis*>{&g.w};
  for (int64_t i = 0; i < sp; ++i) {
    Axis& a = *axes[i];
    a.in = x.shape[2 + i];
    a.k = k[i];
    a.s = s[i];
    a.d = d[i];
    a.p0 = p[i];
    a.p1 = p[i + sp];
    EDGEQ_CHECK(a.k > 0 && a.s > 0 && a.d > 0 && a.p0 >= 0 && a.p1 >= 0, node.describe(),
                ": invalid kernel/stride/dilation/pad");
    resolve_axis(a, auto_pad, ceil_mode, node);
  }
  out_shape = sp == 2 ? Shape{g.n, g.c, g.h.out, g.w.out} : Shape{g.n, g.c, g.w.out};
  return g;
}

enum class PoolKind { kMax, kAvg };

// y[i] = std::max(y[i], x[i]) for n values (a tie, or a NaN in x, keeps y), in SIMD clones.
template <typename T>
EDGEQ_ALWAYS_INLINE void max_into_body(T* y, const T* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = std::max(y[i], x[i]);
}
EDGEQ_SIMD_CLONES(template <typename T>, void, max_into, max_into_body<T>,
                  (T * y, const T* x, int64_t n), (y, x, n))

class PoolKernel : public Kernel {
 public:
  PoolKernel(const KernelInit& init, PoolKind kind) : kind_(kind) {
    const ValueDesc& x = init.in(0);
    // MaxPool also runs on 8-bit codes (--exec int8): the max of codes is the code of the max.
    EDGEQ_CHECK(x.dtype == DType::kFloat32 || (kind == PoolKind::kMax && x.dtype == DType::kUInt8),
                init.node.describe(), ": input type ", dtype_name(x.dtype), " not supported");
    EDGEQ_CHECK(init.node.outputs.size() < 2 || init.node.outputs[1].empty(), init.node.describe(),
                ": the Indices output of MaxPool is not supported");
    Shape out;
    g_ = read_geom(init, out);
    include_pad_ = init.node.attr_int("count_include_pad", 0) != 0;
    nhwc_ = init.layout == Layout::kNHWC && x.shape.size() == 4;
    outputs.push_back({x.dtype, out, nullptr});
  }

  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    if (in[0]->dtype() == DType::kUInt8)
      run_as(in[0]->data<uint8_t>(), out[0]->data<uint8_t>());
    else
      run_as(in[0]->data<float>(), out[0]->data<float>());
  }

 private:
  // Taps of one output position along an axis: first and one-past-last valid tap index, and
  // the count used as the average's divisor when pads are included.
  struct Taps {
    int64_t begin, end, padded;
  };
  static Taps taps(const Axis& a, int64_t o) {
    const int64_t start = o * a.s - a.p0;
    Taps t{0, 0, 0};
    t.begin = a.k;
    for (int64_t i = 0; i < a.k; ++i) {
      const int64_t pos = start + i * a.d;
      if (pos >= -a.p0 && pos < a.in + a.p1) ++t.padded;
      if (pos >= 0 && pos < a.in) {
        t.begin = std::min(t.begin, i);
        t.end = i + 1;
      }
    }
    if (t.begin > t.end) t.begin = t.end;
    return t;
  }

  // Calls f(ih, iw) for each tap of a window (taps th / tw from input row ih0 / column iw0)
  // that lands inside the input, rows outer; returns how many did.
  template <typename F>
  static int64_t for_each_inside(const Axis& h, const Taps& th, int64_t ih0, const Axis& w,
                                 const Taps& tw, int64_t iw0, F&& f) {
    int64_t count = 0;
    for (int64_t i = th.begin; i < th.end; ++i) {
      const int64_t ih = ih0 + i * h.d;
      if (ih < 0 || ih >= h.in) continue;
      for (int64_t j = tw.begin; j < tw.end; ++j) {
        const int64_t iw = iw0 + j * w.d;
        if (iw < 0 || iw >= w.in) continue;
        f(ih, iw);
        ++count;
      }
    }
    return count;
  }

  template <typename T>
  void run_as(const T* x, T* y) {
    if (nhwc_ && kind_ == PoolKind::kMax)
      run_nhwc_max(x, y);
    else if (nhwc_)
      run_nhwc(x, y);
    else
      run_nchw(x, y);
  }

  // The start of a max: -inf for floats, the smallest code for codes.
  template <typename T>
  static T lowest() {
    return std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity()
                                       : std::numeric_limits<T>::lowest();
  }

  template <typename T>
  void run_nchw(const T* x, T* y) const {
    const Axis &h = g_.h, &w = g_.w;
    const int64_t planes = g_.n * g_.c;
#pragma omp parallel for if (planes * h.out * w.out * h.k * w.k > kParallelNumel)
    for (int64_t p = 0; p < planes; ++p) {
      const T* xp = x + p * h.in * w.in;
      T* yp = y + p * h.out * w.out;
      for (int64_t oh = 0; oh < h.out; ++oh) {
        const Taps th = taps(h, oh);
        const int64_t ih0 = oh * h.s - h.p0;
        for (int64_t ow = 0; ow < w.out; ++ow) {
          const Taps tw = taps(w, ow);
          const int64_t iw0 = ow * w.s - w.p0;
          T acc = kind_ == PoolKind::kMax ? lowest<T>() : T(0);
          const int64_t count =
              for_each_inside(h, th, ih0, w, tw, iw0, [&](int64_t ih, int64_t iw) {
                const T v = xp[ih * w.in + iw];
                acc = kind_ == PoolKind::kMax ? std::max(acc, v) : T(acc + v);
              });
          if constexpr (std::is_floating_point_v<T>)
            if (kind_ == PoolKind::kAvg) {
              const int64_t div = include_pad_ ? th.padded * tw.padded : count;
              acc = div > 0 ? acc / static_cast<float>(div) : 0.0f;
            }
          yp[oh * w.out + ow] = acc;
        }
      }
    }
  }

  // x physical [N,H,W,C], y physical [N,OH,OW,C]; the channel loop is innermost.
  template <typename T>
  void run_nhwc(const T* x, T* y) const {
    const Axis &h = g_.h, &w = g_.w;
    const int64_t C = g_.c;
    const int64_t rows = g_.n * h.out;
#pragma omp parallel for if (rows * w.out * C * h.k * w.k > kParallelNumel)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t n = r / h.out, oh = r % h.out;
      const Taps th = taps(h, oh);
      const int64_t ih0 = oh * h.s - h.p0;
      for (int64_t ow = 0; ow < w.out; ++ow) {
        const Taps tw = taps(w, ow);
        const int64_t iw0 = ow * w.s - w.p0;
        T* yv = y + ((n * h.out + oh) * w.out + ow) * C;
        const T init = kind_ == PoolKind::kMax ? lowest<T>() : T(0);
        for (int64_t c = 0; c < C; ++c) yv[c] = init;
        const int64_t count = for_each_inside(h, th, ih0, w, tw, iw0, [&](int64_t ih, int64_t iw) {
          const T* xv = x + ((n * h.in + ih) * w.in + iw) * C;
          if (kind_ == PoolKind::kMax) {
#pragma omp simd
            for (int64_t c = 0; c < C; ++c) yv[c] = std::max(yv[c], xv[c]);
          } else {
#pragma omp simd
            for (int64_t c = 0; c < C; ++c) yv[c] += xv[c];
          }
        });
        if constexpr (std::is_floating_point_v<T>)
          if (kind_ == PoolKind::kAvg) {
            const int64_t div = include_pad_ ? th.padded * tw.padded : count;
            const float inv = div > 0 ? 1.0f / static_cast<float>(div) : 0.0f;
            for (int64_t c = 0; c < C; ++c) yv[c] *= inv;
          }
      }
    }
  }

  // MaxPool on NHWC, separably: each input row's max over the window's columns (rows_max_,
  // [N,H,OW,C]), then each output row's max over the window's rows of those, whole rows of
  // OW x C values at a time. Both passes take taps in ascending order and keep the first of equal
  // values, so the result is the one window-at-a-time pass's to the bit (the first maximum in
  // row-major order; -0 against +0 too), with k_h + k_w steps per output instead of k_h x k_w.
  template <typename T>
  void run_nhwc_max(const T* x, T* y) {
    const Axis &h = g_.h, &w = g_.w;
    const int64_t C = g_.c, row = w.out * C;
    const auto max_into = simd_pick(max_into_avx512<T>, max_into_avx2<T>, max_into_scalar<T>);
    rows_max_.resize(static_cast<size_t>(g_.n * h.in * row) * sizeof(T));
    T* m = reinterpret_cast<T*>(rows_max_.data());
#pragma omp parallel for if (g_.n * h.in * row * w.k > kParallelNumel)
    for (int64_t r = 0; r < g_.n * h.in; ++r) {
      const T* xr = x + r * w.in * C;
      T* mr = m + r * row;
      std::fill(mr, mr + row, lowest<T>());
      for (int64_t ow = 0; ow < w.out; ++ow) {
        const Taps tw = taps(w, ow);
        for (int64_t j = tw.begin; j < tw.end; ++j) {
          const int64_t iw = ow * w.s - w.p0 + j * w.d;
          if (iw >= 0 && iw < w.in) max_into(mr + ow * C, xr + iw * C, C);
        }
      }
    }
#pragma omp parallel for if (g_.n * h.out * row * h.k > kParallelNumel)
    for (int64_t r = 0; r < g_.n * h.out; ++r) {
      const int64_t n = r / h.out, oh = r % h.out;
      T* yr = y + r * row;
      std::fill(yr, yr + row, lowest<T>());
      const Taps th = taps(h, oh);
      for (int64_t i = th.begin; i < th.end; ++i) {
        const int64_t ih = oh * h.s - h.p0 + i * h.d;
        if (ih >= 0 && ih < h.in) max_into(yr, m + (n * h.in + ih) * row, row);
      }
    }
  }

  PoolKind kind_;
  PoolGeom g_;
  bool include_pad_ = false;
  bool nhwc_ = false;
  std::vector<uint8_t> rows_max_;  // run_nhwc_max's first pass
};

class GlobalPoolKernel : public Kernel {
 public:
  GlobalPoolKernel(const KernelInit& init, PoolKind kind) : kind_(kind) {
    const ValueDesc& x = init.in(0);
    // GlobalMaxPool also takes uint8 codes (--exec int8): codes rise with their values, so the
    // largest code is the code of the largest value.
    EDGEQ_CHECK(
        (x.dtype == DType::kFloat32 || (kind == PoolKind::kMax && x.dtype == DType::kUInt8)) &&
            x.shape.size() >= 3,
        init.node.describe(), ": needs a float32 input of rank >= 3, got ", dtype_name(x.dtype),
        " ", shape_str(x.shape));
    EDGEQ_CHECK(init.layout == Layout::kPlain, init.node.describe(), ": NHWC not supported");
    Shape out(x.shape.size(), 1);
    out[0] = x.shape[0];
    out[1] = x.shape[1];
    planes_ = x.shape[0] * x.shape[1];
    size_ = product(x.shape, 2, x.shape.size());
    outputs.push_back({x.dtype, out, nullptr});
  }
  void run(const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) override {
    if (in[0]->dtype() == DType::kUInt8) {
      const uint8_t* x = in[0]->data<uint8_t>();
      uint8_t* y = out[0]->data<uint8_t>();
#pragma omp parallel for if (planes_ * size_ > kParallelNumel)
      for (int64_t p = 0; p < planes_; ++p)
        y[p] = size_ ? *std::max_element(x + p * size_, x + (p + 1) * size_) : 0;
      return;
    }
    const float* x = in[0]->data<float>();
    float* y = out[0]->data<float>();
#pragma omp parallel for if (planes_ * size_ > kParallelNumel)
    for (int64_t p = 0; p < planes_; ++p) {
      const float* xp = x + p * size_;
      if (kind_ == PoolKind::kMax) {
        float m = -std::numeric_limits<float>::infinity();
        for (int64_t i = 0; i < size_; ++i) m = std::max(m, xp[i]);
        y[p] = m;
      } else {
        double s = 0;
        for (int64_t i = 0; i < size_; ++i) s += xp[i];
        y[p] = size_ ? static_cast<float>(s / static_cast<double>(size_)) : 0.0f;
      }
    }
  }

 private:
  PoolKind kind_;
  int64_t planes_ = 0, size_ = 0;
};

}  // namespace

void register_pool_kernels() {
  register_kernel("", "MaxPool", [](const KernelInit& i) {
    return std::make_unique<PoolKernel>(i, PoolKind::kMax);
  });
  register_kernel("", "AveragePool", [](const KernelInit& i) {
    return std::make_unique<PoolKernel>(i, PoolKind::kAvg);
  });
  register_kernel("", "GlobalMaxPool", [](const KernelInit& i) {
    return std::make_unique<GlobalPoolKernel>(i, PoolKind::kMax);
  });
  register_kernel("", "GlobalAveragePool", [](const KernelInit& i) {
    return std::make_unique<GlobalPoolKernel>(i, PoolKind::kAvg);
  });
}

}  // namespace edgeq
