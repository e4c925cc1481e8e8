#include "runtime/host_decode.h"

#include <algorithm>

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

// The DFL's expectation of one side's reg_max logits (stride `step` apart).
float expectation(const float* logits, int64_t step, int reg_max) {
  float m = logits[0];
  for (int i = 1; i < reg_max; ++i) m = std::max(m, logits[i * step]);
  float p[64];
  float sum = 0;
  for (int i = 0; i < reg_max; ++i) {
    p[i] = exp_fast(logits[i * step] - m);
    sum += p[i];
  }
  float e = 0;
  for (int i = 0; i < reg_max; ++i) e += static_cast<float>(i) * (p[i] / sum);
  return e;
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
  for (const RawHeadOutput& o : layout.outputs) {
    const float* x = part_tensor(layout, outputs, o).data<float>();
    const int64_t hw = o.height * o.width;
    const auto s = static_cast<float>(o.stride);
    for (int64_t cell = 0; cell < hw; ++cell) {
      const auto gx = static_cast<float>(cell % o.width), gy = static_cast<float>(cell / o.width);
      const int64_t a = a0 + cell;
      switch (o.part) {
        case HeadPart::kBox: {
          float d[4];
          for (int side = 0; side < 4; ++side)
            d[side] = expectation(x + side * layout.reg_max * hw + cell, hw, layout.reg_max);
          const float ax = gx + 0.5f, ay = gy + 0.5f;
          const float x1 = ax - d[0], y1 = ay - d[1], x2 = ax + d[2], y2 = ay + d[3];
          y[0 * A + a] = (x1 + x2) / 2 * s;
          y[1 * A + a] = (y1 + y2) / 2 * s;
          y[2 * A + a] = (x2 - x1) * s;
          y[3 * A + a] = (y2 - y1) * s;
          break;
        }
        case HeadPart::kClass:
          for (int c = 0; c < nc; ++c) y[(4 + c) * A + a] = sigmoid_fast(x[c * hw + cell]);
          break;
        case HeadPart::kKeypoints:
          for (int k = 0; k < nk; ++k)
            for (int d = 0; d < kd; ++d) {
              const float v = x[(k * kd + d) * hw + cell];
              float r = d == 2 ? sigmoid_fast(v) : (v * 2.0f + (d == 0 ? gx : gy)) * s;
              y[(4 + nc + k * kd + d) * A + a] = r;
            }
          break;
      }
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
