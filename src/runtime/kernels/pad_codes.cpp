#include "runtime/kernels/pad_codes.h"

#include <algorithm>
#include <cstring>

namespace edgeq {

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
  const int64_t top = g.pad_l[0], left = g.pad_l[1];
  const int64_t ph = h + top + g.pad_r[0], pw = w + left + g.pad_r[1];
  // Rows of pixels: NHWC, one image's rows with C bytes a pixel; plain, each channel's rows.
  const bool nhwc = layout == Layout::kNHWC;
  const int64_t planes = nhwc ? n : n * c, bytes = nhwc ? c : 1;
  const int64_t rows = planes * ph, row = pw * bytes;
#pragma omp parallel for schedule(static) if (rows * row > 256 * 1024)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t plane = r / ph, y = r % ph - top;
    uint8_t* d = dst + r * row;
    if (y < 0 || y >= h) {
      std::memset(d, code, size_t(row));
      continue;
    }
    std::memset(d, code, size_t(left * bytes));
    std::memcpy(d + left * bytes, x + (plane * h + y) * w * bytes, size_t(w * bytes));
    std::memset(d + (left + w) * bytes, code, size_t(row - (left + w) * bytes));
  }
}

}  // namespace edgeq
