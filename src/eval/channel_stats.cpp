#include "eval/channel_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace edgeq {

void ChannelStatsAccumulator::add(const Tensor& t) {
  EDGEQ_CHECK(t.dtype() == DType::kFloat32 && t.rank() >= 2, "channel statistics need a float32 ",
              "tensor [N, C, ...], got ", dtype_name(t.dtype()), " ", shape_str(t.shape()));
  const int64_t n = t.dim(0), c = t.dim(1), inner = n > 0 && c > 0 ? t.numel() / (n * c) : 0;
  if (sum_.empty()) {
    sum_.assign(c, 0), sum2_.assign(c, 0);
    min_.assign(c, std::numeric_limits<double>::infinity());
    max_.assign(c, -std::numeric_limits<double>::infinity());
  }
  EDGEQ_CHECK(static_cast<int64_t>(sum_.size()) == c, "channel statistics: ", c, " channels after ",
              sum_.size());
  const float* x = t.data<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const float* p = x + (b * c + ch) * inner;
      double s = 0, s2 = 0, lo = min_[ch], hi = max_[ch];
      for (int64_t i = 0; i < inner; ++i) {
        s += p[i], s2 += double(p[i]) * p[i];
        lo = std::min(lo, double(p[i])), hi = std::max(hi, double(p[i]));
      }
      sum_[ch] += s, sum2_[ch] += s2, min_[ch] = lo, max_[ch] = hi;
    }
  per_channel_ += n * inner;
}

std::vector<ChannelMoments> ChannelStatsAccumulator::result() const {
  std::vector<ChannelMoments> out(sum_.size());
  if (per_channel_ == 0) return out;
  for (size_t ch = 0; ch < sum_.size(); ++ch) {
    const double mean = sum_[ch] / per_channel_;
    out[ch] = {mean, std::max(0.0, sum2_[ch] / per_channel_ - mean * mean), min_[ch], max_[ch]};
  }
  return out;
}

bool channel_diverges(const ChannelMoments& ref, const ChannelMoments& test) {
  const double sd_r = std::sqrt(ref.var), sd_t = std::sqrt(test.var);
  const double scale = std::max({std::fabs(ref.mean), std::fabs(ref.min), std::fabs(ref.max)});
  if (std::fabs(test.mean - ref.mean) > 0.25 * sd_r + 1e-6 * scale) return true;
  if (sd_r <= 1e-6 * scale) return sd_t > 1e-6 * scale + 0.01 * scale;
  return sd_t < 0.5 * sd_r || sd_t > 2 * sd_r;
}

ChannelBlock first_diverging_block(const std::vector<ChannelMoments>& ref,
                                   const std::vector<ChannelMoments>& test) {
  ChannelBlock b;
  const size_t n = std::min(ref.size(), test.size());
  for (size_t c = 0; c < n; ++c) {
    const bool d = channel_diverges(ref[c], test[c]);
    if (d && b.first < 0)
      b.first = b.last = static_cast<int>(c);
    else if (d && b.last == static_cast<int>(c) - 1)
      b.last = static_cast<int>(c);
    else if (!d && b.first >= 0)
      break;
  }
  return b;
}

}  // namespace edgeq
