#include "runtime/kernels/pad_codes.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/simd.h"
#include "runtime/int8_pairs.h"

namespace edgeq {
namespace {

// Rows of output pixels (with the padding where `pad`) from rows of input pixels: row y of an
// image's input becomes a row of `left` pixels of `code`, the input row through `row_copy` and
// `right` pixels of `code`; the padding's rows all `code`. `in_bytes` / `out_bytes`: a pixel's.
template <class RowCopy>
void copy_rows(const uint8_t* x, int64_t planes, int64_t h, int64_t w, int64_t in_bytes,
               int64_t out_bytes, int64_t top, int64_t bottom, int64_t left, int64_t right,
               uint8_t code, uint8_t* dst, RowCopy row_copy) {
  const int64_t ph = h + top + bottom, pw = w + left + right;
  const int64_t rows = planes * ph, row = pw * out_bytes;
#pragma omp parallel for schedule(static) if (rows * row > 256 * 1024)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t plane = r / ph, y = r % ph - top;
    uint8_t* d = dst + r * row;
    if (y < 0 || y >= h) {
      std::memset(d, code, size_t(row));
      continue;
    }
    std::memset(d, code, size_t(left * out_bytes));
    row_copy(x + (plane * h + y) * w * in_bytes, w, d + left * out_bytes);
    std::memset(d + (left + w) * out_bytes, code, size_t(right * out_bytes));
  }
}

constexpr int64_t kBlock = kInt8ChannelBlock;  // a block: two 16-byte lanes

// The slots from `first` on of n pixels, one byte at a time.
void arrange_bytes(const uint8_t* x, int64_t n, int64_t channels, const std::vector<int32_t>& order,
                   int64_t first, uint8_t code, uint8_t* dst) {
  const int64_t slots = static_cast<int64_t>(order.size());
  for (int64_t p = 0; p < n; ++p) {
    const uint8_t* px = x + p * channels;
    uint8_t* d = dst + p * slots;
    for (int64_t s = first; s < slots; ++s) {
      const int32_t ch = order[size_t(s)];
      d[s] = ch < 0 ? code : px[ch];
    }
  }
}

// One block's 32 slots from the 32 bytes at `from` (its channels; for a tail block, those past
// its channels belong to the next pixel): both lanes holding the low 16, then the high 16,
// shuffled by the block's indices and blended on its selects.
__attribute__((target("avx2"), always_inline)) inline void shuffle_block(const uint8_t* from,
                                                                         const uint8_t* index,
                                                                         const uint8_t* high,
                                                                         uint8_t* to) {
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from));
  const __m256i lo = _mm256_permute2x128_si256(v, v, 0x00);
  const __m256i hi = _mm256_permute2x128_si256(v, v, 0x11);
  const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(index));
  const __m256i sel = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(high));
  _mm256_storeu_si256(
      reinterpret_cast<__m256i*>(to),
      _mm256_blendv_epi8(_mm256_shuffle_epi8(lo, idx), _mm256_shuffle_epi8(hi, idx), sel));
}

// The shuffled blocks of n pixels, and where `tail`, the block after them on every pixel but the
// last (its 32-byte load and store run into the next pixel, whose own blocks come after).
__attribute__((target("avx2"))) void arrange_blocks_avx2(const uint8_t* x, int64_t n,
                                                         int64_t channels, int64_t slots,
                                                         int64_t blocks, bool tail,
                                                         const uint8_t* index, const uint8_t* high,
                                                         uint8_t* dst) {
  for (int64_t p = 0; p < n; ++p) {
    const uint8_t* px = x + p * channels;
    uint8_t* d = dst + p * slots;
    for (int64_t b = 0; b < blocks; ++b)
      shuffle_block(px + b * kBlock, index + b * kBlock, high + b * kBlock, d + b * kBlock);
    if (tail && p + 1 < n)
      shuffle_block(px + blocks * kBlock, index + blocks * kBlock, high + blocks * kBlock,
                    d + blocks * kBlock);
  }
}

// Pixels of at most 16 channels and 32 slots, `per_step` a shuffle: 16 bytes of input in both
// lanes, shuffled into the step's slots (the slots of nothing 0, then `fill` ORed in: their code).
// Returns the pixels done: those whose 16-byte load and 32-byte store stay within the n pixels.
__attribute__((target("avx2"))) int64_t arrange_small_avx2(const uint8_t* x, int64_t n,
                                                           int64_t channels, int64_t slots,
                                                           int64_t per_step, const uint8_t* index,
                                                           const uint8_t* fill, uint8_t* dst) {
  const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(index));
  const __m256i code = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(fill));
  int64_t p = 0;
  for (; p * channels + 16 <= n * channels && p * slots + 32 <= n * slots; p += per_step) {
    const __m256i v = _mm256_broadcastsi128_si256(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + p * channels)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + p * slots),
                        _mm256_or_si256(_mm256_shuffle_epi8(v, idx), code));
  }
  return p;
}

}  // namespace

bool conv_pads(const ConvGeometry& g) {
  auto nonzero = [](int64_t p) { return p != 0; };
  return std::any_of(g.pad_l.begin(), g.pad_l.end(), nonzero) ||
         std::any_of(g.pad_r.begin(), g.pad_r.end(), nonzero);
}

ConvGeometry padded_input_geometry(const ConvGeometry& g) {
  ConvGeometry p = g;
  for (size_t i = 0; i < g.pad_l.size(); ++i) {
    p.src_dims[2 + i] += g.pad_l[i] + g.pad_r[i];
    p.pad_l[i] = p.pad_r[i] = 0;
  }
  return p;
}

void pad_codes(const uint8_t* x, const ConvGeometry& g, Layout layout, uint8_t code, uint8_t* dst) {
  const int64_t n = g.src_dims[0], c = g.src_dims[1], h = g.src_dims[2], w = g.src_dims[3];
  // Rows of pixels: NHWC, one image's rows with C bytes a pixel; plain, each channel's rows.
  const bool nhwc = layout == Layout::kNHWC;
  const int64_t planes = nhwc ? n : n * c, bytes = nhwc ? c : 1;
  copy_rows(x, planes, h, w, bytes, bytes, g.pad_l[0], g.pad_r[0], g.pad_l[1], g.pad_r[1], code,
            dst, [bytes](const uint8_t* from, int64_t pixels, uint8_t* to) {
              std::memcpy(to, from, size_t(pixels * bytes));
            });
}

ChannelArrangement::ChannelArrangement(std::vector<int32_t> order, int64_t channels)
    : order_(std::move(order)), channels_(channels) {
  for (int32_t ch : order_)
    EDGEQ_CHECK(ch >= -1 && ch < channels, "channel arrangement names channel ", ch, " of ",
                channels);
  if (channels_ <= 16 && slots() <= 32) {  // whole pixels a shuffle
    per_step_ = std::min(32 / slots(), 16 / channels_);
    for (int64_t s = 0; s < kBlock; ++s) {
      const int64_t pixel = s / slots(), slot = s % slots();
      const int32_t ch = pixel < per_step_ ? order_[size_t(slot)] : -1;
      index_.push_back(ch < 0 ? 0x80 : uint8_t(pixel * channels_ + ch));
      high_.push_back(0);
    }
    return;
  }
  if (slots() != channels_) return;
  // Blocks of 32 slots that read their own channels; a last, shorter block too (tail_).
  for (int64_t b = 0; b * kBlock < slots(); ++b) {
    const int64_t end = std::min(slots(), (b + 1) * kBlock);
    bool own = true;
    for (int64_t s = b * kBlock; s < end; ++s)
      own = own && order_[size_t(s)] >= b * kBlock && order_[size_t(s)] < end;
    if (!own) break;
    for (int64_t s = b * kBlock; s < (b + 1) * kBlock; ++s) {
      const int32_t within = s < end ? order_[size_t(s)] - int32_t(b * kBlock) : int32_t(s % 16);
      index_.push_back(uint8_t(within % 16));
      high_.push_back(within >= 16 ? 0x80 : 0);
    }
    if (end - b * kBlock == kBlock)
      ++shuffled_blocks_;
    else
      tail_ = true;
  }
}

void ChannelArrangement::pixels(const uint8_t* x, int64_t n, uint8_t code, uint8_t* dst) const {
  if (n <= 0) return;
  if (simd_level() == SimdLevel::kScalar)
    return arrange_bytes(x, n, channels_, order_, 0, code, dst);
  if (per_step_ > 0) {
    uint8_t fill[kBlock];
    for (int64_t s = 0; s < kBlock; ++s) fill[s] = index_[size_t(s)] == 0x80 ? code : 0;
    const int64_t done =
        arrange_small_avx2(x, n, channels_, slots(), per_step_, index_.data(), fill, dst);
    return arrange_bytes(x + done * channels_, n - done, channels_, order_, 0, code,
                         dst + done * slots());
  }
  arrange_blocks_avx2(x, n, channels_, slots(), shuffled_blocks_, tail_, index_.data(),
                      high_.data(), dst);
  const int64_t first = shuffled_blocks_ * kBlock;
  if (first == slots()) return;
  // The rest of each pixel's slots one byte at a time, but for a tail shuffled on every pixel
  // before the last.
  if (tail_)
    return arrange_bytes(x + (n - 1) * channels_, 1, channels_, order_, first, code,
                         dst + (n - 1) * slots());
  arrange_bytes(x, n, channels_, order_, first, code, dst);
}

void arrange_codes(const uint8_t* x, const ConvGeometry& g, const ChannelArrangement& a, bool pad,
                   uint8_t code, uint8_t* dst) {
  EDGEQ_CHECK(g.src_dims[1] == a.channels(), "channel arrangement of ", a.channels(),
              " channels for an input of ", g.src_dims[1]);
  const int64_t top = pad ? g.pad_l[0] : 0, bottom = pad ? g.pad_r[0] : 0;
  const int64_t left = pad ? g.pad_l[1] : 0, right = pad ? g.pad_r[1] : 0;
  copy_rows(x, g.src_dims[0], g.src_dims[2], g.src_dims[3], a.channels(), a.slots(), top, bottom,
            left, right, code, dst, [&a, code](const uint8_t* from, int64_t pixels, uint8_t* to) {
              a.pixels(from, pixels, code, to);
            });
}

}  // namespace edgeq
