#include "repair/bias_correction.h"

#include "core/error.h"

namespace edgeq {

Tensor corrected_bias(const Tensor& w, const Tensor& w_quantized, const Tensor* bias,
                      const ConvInputMoments& m) {
  EDGEQ_CHECK(w.dtype() == DType::kFloat32 && w.rank() == 4 && w_quantized.shape() == w.shape() &&
                  w_quantized.dtype() == DType::kFloat32,
              "bias correction: weights must be float32 [O, C/group, kH, kW] of one shape, got ",
              shape_str(w.shape()), " and ", shape_str(w_quantized.shape()));
  const int64_t rows = w.shape()[0], k = w.shape()[1] * w.shape()[2] * w.shape()[3];
  EDGEQ_CHECK(m.k == k && m.groups > 0 && rows % m.groups == 0, "bias correction: input moments (",
              m.groups, " groups of ", m.k, ") do not fit weight ", shape_str(w.shape()));
  EDGEQ_CHECK(!bias || (bias->dtype() == DType::kFloat32 && bias->numel() == rows),
              "bias correction: bias must be float32 with ", rows, " values");
  Tensor out = Tensor::from_vector<float>({rows}, std::vector<float>(rows, 0.0f));
  const float *x = w.data<float>(), *q = w_quantized.data<float>();
  const int64_t per_group = rows / m.groups;
  for (int64_t g = 0; g < m.groups; ++g) {
    const std::vector<double> mean = m.mean(g);
    for (int64_t o = g * per_group; o < (g + 1) * per_group; ++o) {
      double shift = 0;
      for (int64_t i = 0; i < k; ++i)
        shift += (static_cast<double>(q[o * k + i]) - x[o * k + i]) * mean[i];
      const double b = bias ? bias->data<float>()[o] : 0.0;
      out.data<float>()[o] = static_cast<float>(b - shift);
    }
  }
  return out;
}

}  // namespace edgeq
