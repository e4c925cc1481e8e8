#include "runtime/host_decode.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/fast_math.h"

namespace edgeq {
namespace {

const Tensor& part_tensor(const RawHeadLayout& layout, const std::map<std::string, Tensor>& outputs,
                          const RawHeadOutput& o) {
  auto it = outputs.find(o.name);
  EDGEQ_CHECK(it != outputs.end(), "host decode: no output '", o.name, "' (",
              head_part_name(o.part), " at stride ", o.stride, ")");
  const Shape want{1, layout.channels_of(o.part), o.height, o.width};
  EDGEQ_CHECK(it->second.dtype() == DType::kFloat32 && it->second.shape() == want,
              "host decode: output '", o.name, "' is ", dtype_name(it->second.dtype()), " ",
              shape_str(it->second.shape()), "; its ", head_part_name(o.part),
              " part needs float32 ", shape_str(want));
  return it->second;
}

// The DFL's expectation for every cell of one side: the softmax of its reg_max logits (planes
// `hw` apart, cells contiguous) and the mean bin, sum(i e^(l_i - max)) / sum(e^(l_i - max)).
// Plane by plane over the cells: every loop reads memory in order and vectorizes.
void expectations(const float* logits, int64_t hw, int reg_max, float* out, float* max,
                  float* sum) {
  std::copy(logits, logits + hw, max);
  for (int i = 1; i < reg_max; ++i) {
    const float* l = logits + i * hw;
    for (int64_t c = 0; c < hw; ++c) max[c] = std::max(max[c], l[c]);
  }
  std::fill(sum, sum + hw, 0.0f);
  std::fill(out, out + hw, 0.0f);
  for (int i = 0; i < reg_max; ++i) {
    const float* l = logits + i * hw;
    const auto bin = static_cast<float>(i);
#pragma omp simd
    for (int64_t c = 0; c < hw; ++c) {
      const float e = exp_fast(l[c] - max[c]);
      sum[c] += e;
      out[c] += bin * e;
    }
  }
  for (int64_t c = 0; c < hw; ++c) out[c] /= sum[c];
}

}  // namespace

Tensor decode_raw_head(const RawHeadLayout& layout, const std::map<std::string, Tensor>& outputs) {
  const int64_t A = layout.anchors();
  const int nc = layout.num_classes, nk = layout.num_keypoints, kd = layout.keypoint_dims;
  EDGEQ_CHECK(layout.reg_max > 0 && layout.reg_max <= 64, "host decode: reg_max ", layout.reg_max,
              " is out of range");
  Tensor out = Tensor::uninitialized(DType::kFloat32, layout.decoded_info().shape);
  float* y = out.data<float>();
  int64_t a0 = 0;  // first anchor of the scale
  std::vector<float> d, scratch;
  for (const RawHeadOutput& o : layout.outputs) {
    const float* x = part_tensor(layout, outputs, o).data<float>();
    const int64_t hw = o.height * o.width;
    const auto s = static_cast<float>(o.stride);
    switch (o.part) {
      case HeadPart::kBox: {
        d.resize(4 * hw), scratch.resize(8 * hw);
        // The sides are independent: the executor's threads share them (same results for any
        // thread count).
#pragma omp parallel for schedule(static)
        for (int side = 0; side < 4; ++side)
          expectations(x + side * layout.reg_max * hw, hw, layout.reg_max, d.data() + side * hw,
                       scratch.data() + 2 * side * hw, scratch.data() + (2 * side + 1) * hw);
        for (int64_t gy = 0; gy < o.height; ++gy)
          for (int64_t gx = 0; gx < o.width; ++gx) {
            const int64_t cell = gy * o.width + gx, a = a0 + cell;
            const float ax = static_cast<float>(gx) + 0.5f, ay = static_cast<float>(gy) + 0.5f;
            const float x1 = ax - d[cell], y1 = ay - d[hw + cell];
            const float x2 = ax + d[2 * hw + cell], y2 = ay + d[3 * hw + cell];
            y[0 * A + a] = (x1 + x2) / 2 * s;
            y[1 * A + a] = (y1 + y2) / 2 * s;
            y[2 * A + a] = (x2 - x1) * s;
            y[3 * A + a] = (y2 - y1) * s;
          }
        break;
      }
      case HeadPart::kClass:
        for (int c = 0; c < nc; ++c) {
          float* row = y + (4 + c) * A + a0;
          const float* in = x + c * hw;
#pragma omp simd
          for (int64_t cell = 0; cell < hw; ++cell) row[cell] = sigmoid_fast(in[cell]);
        }
        break;
      case HeadPart::kKeypoints:
#pragma omp parallel for schedule(static)
        for (int r = 0; r < nk * kd; ++r) {  // r = keypoint * kd + dim
          const int dim = r % kd;
          float* row = y + (4 + nc + r) * A + a0;
          const float* in = x + r * hw;
          if (dim == 2) {
#pragma omp simd
            for (int64_t cell = 0; cell < hw; ++cell) row[cell] = sigmoid_fast(in[cell]);
            continue;
          }
          for (int64_t gy = 0; gy < o.height; ++gy)
            for (int64_t gx = 0; gx < o.width; ++gx) {
              const int64_t cell = gy * o.width + gx;
              const auto g = static_cast<float>(dim == 0 ? gx : gy);
              row[cell] = (in[cell] * 2.0f + g) * s;
            }
        }
        break;
    }
    // The last part of a scale moves the anchor offset on.
    const bool last_of_scale =
        (o.part == HeadPart::kKeypoints) || (o.part == HeadPart::kClass && nk == 0);
    if (last_of_scale) a0 += hw;
  }
  EDGEQ_CHECK(a0 == A, "host decode: the outputs cover ", a0, " anchors of ", A);
  return out;
}

}  // namespace edgeq
