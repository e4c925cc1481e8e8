#include "encode/saturation_safe.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.h"
#include "runtime/int8_pairs.h"

namespace edgeq {

std::vector<std::vector<int32_t>> pair_partners(int64_t channels_per_group, int64_t kh,
                                                int64_t kw) {
  std::vector<std::vector<int32_t>> partners(static_cast<size_t>(channels_per_group * kh * kw));
  auto link = [&](int32_t a, int32_t b) {
    auto& list = partners[static_cast<size_t>(a)];
    if (std::find(list.begin(), list.end(), b) == list.end()) list.push_back(b);
  };
  for (PairOrder order : {PairOrder::kOnnxRuntime, PairOrder::kOneDnn})
    for (const auto& [a, b] : conv_weight_pairs(channels_per_group, kh, kw, order)) {
      link(a, b);
      link(b, a);
    }
  return partners;
}

CodeRange safe_code_range(const std::vector<int32_t>& partners_of_a, const int64_t* codes,
                          const char* chosen, int64_t lo, int64_t hi) {
  for (int32_t p : partners_of_a) {
    if (!chosen[p]) continue;
    if (codes[p] > 0) hi = std::min(hi, 128 - codes[p]);
    if (codes[p] < 0) lo = std::max(lo, -128 - codes[p]);
  }
  return {lo, hi};
}

bool row_has_overflowing_pair(const Tensor& q, int64_t o,
                              const std::vector<std::vector<int32_t>>& partners) {
  const int64_t k = static_cast<int64_t>(partners.size());
  const int8_t* row = q.data<int8_t>() + o * k;
  for (int64_t a = 0; a < k; ++a)
    for (int32_t b : partners[a])
      if (pair_can_overflow(row[a], row[b])) return true;
  return false;
}

namespace {

// Lowers overflowing pairs of one row of codes (unrounded values `real`) until none is left.
void fix_row(int8_t* row, const double* real, const std::vector<std::vector<int32_t>>& partners) {
  const int64_t k = static_cast<int64_t>(partners.size());
  // How far a code's magnitude lies beyond its unrounded value: the one to lower first.
  auto excess = [&](int64_t a) { return std::fabs(double(row[a])) - std::fabs(real[a]); };
  for (bool again = true; again;) {
    again = false;
    for (int64_t a = 0; a < k; ++a)
      for (int32_t b : partners[a])
        while (pair_can_overflow(row[a], row[b])) {
          const int64_t lower = excess(a) >= excess(b) ? a : b;
          row[lower] = static_cast<int8_t>(row[lower] > 0 ? row[lower] - 1 : row[lower] + 1);
          again = true;
        }
  }
}

Encoding with_scale(Encoding e, float scale) {
  e.scale = scale;
  e.min = static_cast<float>(e.offset) * scale;
  e.max = static_cast<float>((int64_t{1} << e.bitwidth) - 1 + e.offset) * scale;
  return e;
}

}  // namespace

TensorEncoding saturation_safe_encoding(const Tensor& w, const TensorEncoding& enc) {
  if (!enc.per_channel() || enc.axis != 0 || w.rank() != 4 || w.dtype() != DType::kFloat32 ||
      enc.channels.empty() || enc.at(0).bitwidth != 8 || !enc.at(0).is_signed)
    return enc;
  const auto partners = pair_partners(w.dim(1), w.dim(2), w.dim(3));
  const int64_t rows = w.dim(0), k = static_cast<int64_t>(partners.size());
  constexpr int kSteps = 16;  // scales tried between 1 and the largest pair sum / 128
  TensorEncoding out = enc;
  std::vector<int8_t> codes(static_cast<size_t>(k));
  std::vector<double> real(static_cast<size_t>(k));
  for (int64_t o = 0; o < rows; ++o) {
    const float* x = w.data<float>() + o * k;
    const Encoding& e = enc.at(static_cast<size_t>(o));
    int worst = 0;  // the largest same-sign pair sum under nearest rounding
    for (int64_t a = 0; a < k; ++a)
      for (int32_t b : partners[a]) {
        const int64_t qa = e.quantize(x[a]), qb = e.quantize(x[b]);
        if ((qa > 0) == (qb > 0) && qa != 0 && qb != 0)
          worst = std::max(worst, static_cast<int>(std::llabs(qa + qb)));
      }
    if (worst <= 128) continue;
    double best_error = -1;
    for (int step = 0; step <= kSteps; ++step) {
      const double grow = 1.0 + (worst / 128.0 - 1.0) * step / kSteps;
      const Encoding c = with_scale(e, static_cast<float>(e.scale * grow));
      for (int64_t a = 0; a < k; ++a) {
        codes[a] = static_cast<int8_t>(std::clamp<int64_t>(c.quantize(x[a]), -c.qmax(), c.qmax()));
        real[a] = double(x[a]) / c.scale;
      }
      fix_row(codes.data(), real.data(), partners);
      double error = 0;
      for (int64_t a = 0; a < k; ++a) {
        const double d = double(x[a]) - double(c.dequantize(codes[a]));
        error += d * d;
      }
      if (best_error < 0 || error < best_error) {
        best_error = error;
        out.channels[static_cast<size_t>(o)] = c;
      }
    }
  }
  return out;
}

TensorEncoding reduce_range_encoding(const Tensor& w, const TensorEncoding& enc) {
  if (enc.channels.empty() || enc.at(0).bitwidth != 8 || !enc.at(0).is_signed ||
      w.dtype() != DType::kFloat32)
    return enc;
  TensorEncoding out = enc;
  for (size_t c = 0; c < enc.channels.size(); ++c) {
    double m = 0;
    for (float v : channel_values(w, enc.axis, static_cast<int64_t>(c)))
      m = std::max(m, std::fabs(static_cast<double>(v)));
    out.channels[c] = encoding_from_range(-m * 127 / 64, m * 127 / 64, 8, true);
  }
  return out;
}

int64_t make_pairs_safe(Tensor& q, const Tensor& w, const TensorEncoding& enc) {
  EDGEQ_CHECK(q.dtype() == DType::kInt8 && q.rank() == 4 && w.shape() == q.shape() &&
                  w.dtype() == DType::kFloat32,
              "saturation-safe codes need int8 conv codes and their float weight, got ",
              dtype_name(q.dtype()), " ", shape_str(q.shape()), " and ", dtype_name(w.dtype()), " ",
              shape_str(w.shape()));
  const auto partners = pair_partners(q.dim(1), q.dim(2), q.dim(3));
  const int64_t rows = q.dim(0), k = static_cast<int64_t>(partners.size());
  int64_t changed = 0;
  for (int64_t o = 0; o < rows; ++o) {
    if (!row_has_overflowing_pair(q, o, partners)) continue;
    int8_t* row = q.data<int8_t>() + o * k;
    const float* x = w.data<float>() + o * k;
    const Encoding& e = enc.at(enc.per_channel() ? static_cast<size_t>(o) : 0);
    std::vector<int8_t> before(row, row + k);
    std::vector<double> real(static_cast<size_t>(k));
    for (int64_t a = 0; a < k; ++a) real[a] = double(x[a]) / e.scale;
    fix_row(row, real.data(), partners);
    for (int64_t a = 0; a < k; ++a) changed += row[a] != before[a];
  }
  return changed;
}

}  // namespace edgeq
