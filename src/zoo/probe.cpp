#include "zoo/probe.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "runtime/kernel.h"
#include "zoo/synthetic_weights.h"

namespace edgeq::zoo::probe {
namespace {

int64_t n_of(const Tensor& x) {
  return x.dim(0);
}
int64_t c_of(const Tensor& x) {
  return x.dim(1);
}
int64_t plane(const Tensor& x) {
  return x.dim(2) * x.dim(3);
}

}  // namespace

Tensor synthetic_scenes(uint64_t seed, int64_t n, int64_t size) {
  // Dead-leaves model: opaque discs with random colours and power-law radii (density ~ r^-3)
  // painted over each other. Like natural images it is scale invariant, has sharp occlusion
  // edges and a ~1/f spectrum, which is what random (high-pass) filters respond to; smooth
  // synthetic images would leave them nearly silent and mis-calibrate the whole stack.
  Tensor t(DType::kFloat32, {n, 3, size, size});
  const int64_t bar = size / 8;  // letterbox bars of a 4:3 landscape photo
  const double r_min = 1.0, r_max = size / 3.0;
  const int kLeaves = 4000;
  std::vector<float> rgb(3 * size * size);
  for (int64_t b = 0; b < n; ++b) {
    Rng rng(tensor_seed(seed, "scene" + std::to_string(b)));
    for (int j = 0; j < kLeaves; ++j) {
      // Inverse-CDF draw of r with density ~ r^-3 on [r_min, r_max].
      double u = rng.uniform();
      double r = 1.0 / std::sqrt((1 - u) / (r_min * r_min) + u / (r_max * r_max));
      double cx = size * rng.uniform(), cy = size * rng.uniform();
      double grey = rng.uniform();
      float colour[3];
      for (float& c : colour)  // mostly muted colours around a random brightness
        c = static_cast<float>(std::clamp(grey + 0.25 * rng.normal(), 0.0, 1.0));
      int64_t y0 = std::max<int64_t>(0, static_cast<int64_t>(cy - r));
      int64_t y1 = std::min<int64_t>(size - 1, static_cast<int64_t>(cy + r));
      int64_t x0 = std::max<int64_t>(0, static_cast<int64_t>(cx - r));
      int64_t x1 = std::min<int64_t>(size - 1, static_cast<int64_t>(cx + r));
      for (int64_t y = y0; y <= y1; ++y)
        for (int64_t x = x0; x <= x1; ++x)
          if ((x + 0.5 - cx) * (x + 0.5 - cx) + (y + 0.5 - cy) * (y + 0.5 - cy) <= r * r)
            for (int c = 0; c < 3; ++c) rgb[(c * size + y) * size + x] = colour[c];
    }
    for (int c = 0; c < 3; ++c)
      for (int64_t y = 0; y < size; ++y)
        for (int64_t x = 0; x < size; ++x) {
          bool pad = y < bar || y >= size - bar;
          t.data<float>()[((b * 3 + c) * size + y) * size + x] =
              pad ? 114.f / 255.f : rgb[(c * size + y) * size + x];
        }
  }
  return t;
}

Tensor calibration_batch(uint64_t seed, int64_t scenes, int64_t size) {
  Tensor t(DType::kFloat32, {scenes + 1, 3, size, size});
  Tensor s = synthetic_scenes(seed, scenes, size);
  std::copy(s.data<float>(), s.data<float>() + s.numel(), t.data<float>());
  std::fill(t.data<float>() + s.numel(), t.data<float>() + t.numel(), 114.f / 255.f);
  return t;
}

Tensor conv2d(const Tensor& x, const Tensor& w, int64_t stride, int64_t groups) {
  EDGEQ_CHECK(c_of(x) == w.dim(1) * groups, "zoo probe: conv of ", c_of(x),
              " channels with weight ", shape_str(w.shape()), " in ", groups, " groups");
  // The runtime's own Conv kernel (oneDNN), on a one-node description.
  const int64_t k = w.dim(2), pad = k / 2;
  Node node;
  node.name = "zoo_probe_conv";
  node.op_type = "Conv";
  node.inputs = {"x", "w"};
  node.outputs = {"y"};
  auto ints = [](std::vector<int64_t> v) { return Attribute::integers(std::move(v)); };
  Attribute group = Attribute::integer(groups);
  node.attrs = {{"group", group},
                {"kernel_shape", ints({k, k})},
                {"pads", ints({pad, pad, pad, pad})},
                {"strides", ints({stride, stride})}};
  KernelInit init{node, {{DType::kFloat32, x.shape(), nullptr}, {DType::kFloat32, w.shape(), &w}}};
  // One thread: oneDNN splits its sums differently for other thread counts, and the weights
  // derived from these activations must come out bit-identical every time.
  const int saved_threads = omp_get_max_threads();
  omp_set_num_threads(1);
  std::unique_ptr<Kernel> kernel = create_kernel(init);
  Tensor y(DType::kFloat32, kernel->outputs.at(0).shape);
  kernel->run({&x, &w}, {&y});
  omp_set_num_threads(saved_threads);
  return y;
}

void affine_channels(Tensor& x, const std::vector<double>& scale,
                     const std::vector<double>& shift) {
  const int64_t n = n_of(x), c = c_of(x), p = plane(x);
  float* d = x.data<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      float* q = d + (b * c + ch) * p;
      for (int64_t i = 0; i < p; ++i) q[i] = static_cast<float>(q[i] * scale[ch] + shift[ch]);
    }
}

Tensor silu(const Tensor& x) {
  Tensor y(DType::kFloat32, x.shape());
  const float* a = x.data<float>();
  float* d = y.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) d[i] = a[i] / (1.f + std::exp(-a[i]));
  return y;
}

Tensor add(const Tensor& a, const Tensor& b) {
  EDGEQ_CHECK(a.shape() == b.shape(), "zoo probe: add of ", shape_str(a.shape()), " and ",
              shape_str(b.shape()));
  Tensor y(DType::kFloat32, a.shape());
  for (int64_t i = 0; i < a.numel(); ++i)
    y.data<float>()[i] = a.data<float>()[i] + b.data<float>()[i];
  return y;
}

Tensor concat_channels(const std::vector<const Tensor*>& xs) {
  const Tensor& f = *xs.at(0);
  int64_t c = 0;
  for (const Tensor* x : xs) c += c_of(*x);
  Tensor y(DType::kFloat32, {n_of(f), c, f.dim(2), f.dim(3)});
  const int64_t p = plane(f);
  for (int64_t b = 0; b < n_of(f); ++b) {
    float* dst = y.data<float>() + b * c * p;
    for (const Tensor* x : xs) {
      EDGEQ_CHECK(x->dim(2) == f.dim(2) && x->dim(3) == f.dim(3), "zoo probe: concat of ",
                  shape_str(x->shape()), " and ", shape_str(f.shape()));
      const float* src = x->data<float>() + b * c_of(*x) * p;
      std::copy(src, src + c_of(*x) * p, dst);
      dst += c_of(*x) * p;
    }
  }
  return y;
}

Tensor slice_channels(const Tensor& x, int64_t begin, int64_t count) {
  Tensor y(DType::kFloat32, {n_of(x), count, x.dim(2), x.dim(3)});
  const int64_t p = plane(x);
  for (int64_t b = 0; b < n_of(x); ++b) {
    const float* src = x.data<float>() + (b * c_of(x) + begin) * p;
    std::copy(src, src + count * p, y.data<float>() + b * count * p);
  }
  return y;
}

Tensor maxpool(const Tensor& x, int64_t k) {
  const int64_t h = x.dim(2), w = x.dim(3), pad = k / 2;
  Tensor y(DType::kFloat32, x.shape());
  for (int64_t pl = 0; pl < n_of(x) * c_of(x); ++pl) {
    const float* in = x.data<float>() + pl * h * w;
    float* out = y.data<float>() + pl * h * w;
    for (int64_t oy = 0; oy < h; ++oy)
      for (int64_t ox = 0; ox < w; ++ox) {
        float m = -INFINITY;
        for (int64_t iy = std::max<int64_t>(0, oy - pad); iy <= std::min(h - 1, oy + pad); ++iy)
          for (int64_t ix = std::max<int64_t>(0, ox - pad); ix <= std::min(w - 1, ox + pad); ++ix)
            m = std::max(m, in[iy * w + ix]);
        out[oy * w + ox] = m;
      }
  }
  return y;
}

Tensor upsample2x(const Tensor& x) {
  const int64_t h = x.dim(2), w = x.dim(3);
  Tensor y(DType::kFloat32, {n_of(x), c_of(x), 2 * h, 2 * w});
  for (int64_t pl = 0; pl < n_of(x) * c_of(x); ++pl) {
    const float* in = x.data<float>() + pl * h * w;
    float* out = y.data<float>() + pl * 4 * h * w;
    for (int64_t oy = 0; oy < 2 * h; ++oy)
      for (int64_t ox = 0; ox < 2 * w; ++ox) out[oy * 2 * w + ox] = in[(oy / 2) * w + ox / 2];
  }
  return y;
}

std::pair<Tensor, Tensor> attention(const Tensor& qkv, int64_t heads, int64_t key_dim,
                                    int64_t head_dim, float scale) {
  const int64_t n = n_of(qkv), np = plane(qkv), group = 2 * key_dim + head_dim;
  EDGEQ_CHECK(c_of(qkv) == heads * group, "zoo probe: attention on ", c_of(qkv), " channels");
  Tensor mixed(DType::kFloat32, {n, heads * head_dim, qkv.dim(2), qkv.dim(3)});
  Tensor v_out(DType::kFloat32, mixed.shape());
  std::vector<double> attn(np * np);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t hd = 0; hd < heads; ++hd) {
      const float* base = qkv.data<float>() + (b * c_of(qkv) + hd * group) * np;
      const float* q = base;
      const float* k = base + key_dim * np;
      const float* v = base + 2 * key_dim * np;
      // attn[i][j] = softmax_j(sum_d q[d][i] k[d][j] * scale)
      for (int64_t i = 0; i < np; ++i) {
        double mx = -INFINITY;
        for (int64_t j = 0; j < np; ++j) {
          double s = 0;
          for (int64_t d = 0; d < key_dim; ++d) s += double(q[d * np + i]) * k[d * np + j];
          attn[i * np + j] = s * scale;
          mx = std::max(mx, attn[i * np + j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < np; ++j)
          sum += (attn[i * np + j] = std::exp(attn[i * np + j] - mx));
        for (int64_t j = 0; j < np; ++j) attn[i * np + j] /= sum;
      }
      // out[d][i] = sum_j v[d][j] attn[i][j]
      float* out = mixed.data<float>() + (b * heads * head_dim + hd * head_dim) * np;
      float* vcopy = v_out.data<float>() + (b * heads * head_dim + hd * head_dim) * np;
      for (int64_t d = 0; d < head_dim; ++d)
        for (int64_t i = 0; i < np; ++i) {
          double s = 0;
          for (int64_t j = 0; j < np; ++j) s += double(v[d * np + j]) * attn[i * np + j];
          out[d * np + i] = static_cast<float>(s);
          vcopy[d * np + i] = v[d * np + i];
        }
    }
  return {mixed, v_out};
}

void channel_stats(const Tensor& x, std::vector<double>* mean, std::vector<double>* var) {
  const int64_t n = n_of(x), c = c_of(x), p = plane(x);
  mean->assign(c, 0.0);
  var->assign(c, 0.0);
  for (int64_t ch = 0; ch < c; ++ch) {
    double s = 0, s2 = 0;
    for (int64_t b = 0; b < n; ++b) {
      const float* q = x.data<float>() + (b * c + ch) * p;
      for (int64_t i = 0; i < p; ++i) {
        s += q[i];
        s2 += double(q[i]) * q[i];
      }
    }
    double m = s / (n * p);
    (*mean)[ch] = m;
    (*var)[ch] = std::max(s2 / (n * p) - m * m, 0.0);
  }
}

}  // namespace edgeq::zoo::probe
