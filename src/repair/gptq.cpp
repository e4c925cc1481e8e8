#include "repair/gptq.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "core/error.h"
#include "encode/exact_encoding.h"
#include "encode/saturation_safe.h"

namespace edgeq {
namespace {

constexpr int64_t kBlock = 64;  // Cholesky block size

// Eight fixed partial sums added in a fixed order: the same bits whatever vector width the
// compiler or the CPU gives the loop (an `omp simd` reduction would sum in lanes of that width).
double dot(const double* a, const double* b, int64_t n) {
  constexpr int64_t kParts = 8;
  double part[kParts] = {};
  int64_t i = 0;
  for (; i + kParts <= n; i += kParts)
    for (int64_t j = 0; j < kParts; ++j) part[j] += a[i + j] * b[i + j];
  for (int64_t j = 0; i + j < n; ++j) part[j] += a[i + j] * b[i + j];
  double s = 0;
  for (double v : part) s += v;
  return s;
}

// In-place blocked right-looking Cholesky of the symmetric n x n row-major `a`: its lower triangle
// becomes L with a = L L^T. False when a pivot is not positive. Each entry is updated by one
// thread, block after block, so the result does not depend on the number of threads.
bool cholesky(std::vector<double>& a, int64_t n, int threads) {
  double* A = a.data();
  for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
    const int64_t j1 = std::min(n, j0 + kBlock);
    for (int64_t j = j0; j < j1; ++j) {  // the diagonal block
      const double d = A[j * n + j] - dot(A + j * n + j0, A + j * n + j0, j - j0);
      if (!(d > 0) || !std::isfinite(d)) return false;
      A[j * n + j] = std::sqrt(d);
      for (int64_t i = j + 1; i < j1; ++i)
        A[i * n + j] = (A[i * n + j] - dot(A + i * n + j0, A + j * n + j0, j - j0)) / A[j * n + j];
    }
    bool finite = true;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(&& : finite)
    for (int64_t i = j1; i < n; ++i) {  // the panel below it
      for (int64_t j = j0; j < j1; ++j)
        A[i * n + j] = (A[i * n + j] - dot(A + i * n + j0, A + j * n + j0, j - j0)) / A[j * n + j];
      finite = finite && std::isfinite(A[i * n + j1 - 1]);
    }
    if (!finite) return false;
#pragma omp parallel for schedule(dynamic, 8) num_threads(threads)
    for (int64_t i = j1; i < n; ++i)  // the trailing matrix
      for (int64_t j = j1; j <= i; ++j)
        A[i * n + j] -= dot(A + i * n + j0, A + j * n + j0, j1 - j0);
  }
  return true;
}

// The code range GPTQ may use: the storage type's, without -2^(b-1) for symmetric signed
// encodings (weights keep +-(2^(b-1) - 1), as max-abs produces).
int64_t lowest_code(const Encoding& e) {
  return e.symmetric && e.is_signed ? -e.qmax() : e.qmin();
}

// GPTQ rounding of one group's rows (rows [o0, o1) of the [O, k] weight) with its Gram matrix.
// False when H could not be factored even with more dampening: the caller keeps nearest rounding.
// `partners`: each column's int16 pair partners when the codes are made saturation-safe, else
// empty.
bool round_group(const float* w, float* out, int64_t o0, int64_t o1, int64_t k,
                 const TensorEncoding& enc, const double* gram, const GptqOptions& opt,
                 const std::vector<char>& exact, const std::vector<std::vector<int32_t>>& partners,
                 int threads) {
  double mean_diag = 0;
  for (int64_t i = 0; i < k; ++i) mean_diag += gram[i * k + i];
  mean_diag /= static_cast<double>(k);
  if (!(mean_diag > 0)) return false;  // the input never varied: nothing to weigh errors by

  // Rounding order: o[0] first. The factored matrix puts o[0] last: Hp[a][b] = H[o[k-1-a]][...].
  std::vector<int64_t> order(static_cast<size_t>(k));
  std::iota(order.begin(), order.end(), 0);
  if (opt.act_order)
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return gram[a * k + a] > gram[b * k + b]; });
  std::vector<int64_t> column(static_cast<size_t>(k));  // factored index -> weight column
  for (int64_t a = 0; a < k; ++a) column[a] = order[k - 1 - a];

  std::vector<double> L;
  bool factored = false;
  for (double damp = opt.damp; !factored && damp <= 1.0; damp *= 10) {
    L.assign(static_cast<size_t>(k * k), 0.0);
    for (int64_t a = 0; a < k; ++a)
      for (int64_t b = 0; b <= a; ++b) L[a * k + b] = gram[column[a] * k + column[b]];
    for (int64_t a = 0; a < k; ++a) {
      double& d = L[a * k + a];
      if (d == 0) d = 1;  // an input that was always 0: no correlation, any weight is as good
      d += damp * mean_diag;
    }
    factored = cholesky(L, k, threads);
  }
  if (!factored) return false;
  // The upper triangle (unused by the factor) takes L[b][a] / L[a][a] for b > a at [a][b]: how an
  // error on column b carries over to column a, contiguous in b.
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = a + 1; b < k; ++b) L[a * k + b] = L[b * k + a] / L[a * k + a];
  const double* ratio = L.data();

#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t o = o0; o < o1; ++o) {
    if (exact[static_cast<size_t>(o)]) continue;
    const Encoding& e = enc.at(static_cast<size_t>(o));
    const float* row = w + o * k;
    float* q = out + o * k;
    std::vector<double> residual(static_cast<size_t>(k), 0.0);  // w - q, factored order
    std::vector<int64_t> codes(static_cast<size_t>(k), 0);      // by weight column
    std::vector<char> chosen(static_cast<size_t>(k), 0);
    for (int64_t a = k - 1; a >= 0; --a) {
      const double target =
          row[column[a]] + dot(residual.data() + a + 1, ratio + a * k + a + 1, k - 1 - a);
      CodeRange range{lowest_code(e), e.qmax()};
      if (!partners.empty())
        range =
            safe_code_range(partners[column[a]], codes.data(), chosen.data(), range.lo, range.hi);
      const int64_t code = std::clamp(e.quantize(static_cast<float>(target)), range.lo, range.hi);
      codes[column[a]] = code;
      chosen[column[a]] = 1;
      q[column[a]] = e.dequantize(code);
      residual[a] = static_cast<double>(row[column[a]]) - q[column[a]];
    }
  }
  return true;
}

}  // namespace

GptqResult gptq_round(const Tensor& w, const TensorEncoding& enc, const ConvInputMoments& m,
                      const GptqOptions& opt, int threads) {
  EDGEQ_CHECK(w.dtype() == DType::kFloat32 && w.rank() == 4,
              "GPTQ: weight must be float32 "
              "[O, C/group, kH, kW], got ",
              dtype_name(w.dtype()), " ", shape_str(w.shape()));
  const int64_t rows = w.shape()[0], k = w.shape()[1] * w.shape()[2] * w.shape()[3];
  EDGEQ_CHECK(m.has_gram() && m.k == k && rows % m.groups == 0, "GPTQ: input moments (", m.groups,
              " groups of ", m.k, ") do not fit weight ", shape_str(w.shape()));
  EDGEQ_CHECK(
      !enc.per_channel() || (enc.axis == 0 && static_cast<int64_t>(enc.channels.size()) == rows),
      "GPTQ: weight encoding is not per output channel");
  GptqResult r;
  r.rows = rows;
  r.weight = dequantize_tensor(quantize_tensor(w, enc), enc);  // nearest, the fallback
  const float* x = w.data<float>();
  const bool safe = opt.saturation_safe && enc.at(0).bitwidth == 8 && enc.at(0).is_signed;
  std::vector<std::vector<int32_t>> partners;
  Tensor nearest;
  if (safe) {
    partners = pair_partners(w.shape()[1], w.shape()[2], w.shape()[3]);
    nearest = quantize_tensor(w, enc);
  }
  std::vector<char> exact(static_cast<size_t>(rows));
  for (int64_t o = 0; o < rows; ++o) {
    exact[o] = round_trips(enc.at(static_cast<size_t>(o)), x + o * k, static_cast<size_t>(k)) &&
               !(safe && row_has_overflowing_pair(nearest, o, partners));
    r.rows_exact += exact[o];
  }
  const int64_t per_group = rows / m.groups;
  for (int64_t g = 0; g < m.groups; ++g) {
    const int64_t o0 = g * per_group, o1 = o0 + per_group;
    if (std::all_of(exact.begin() + o0, exact.begin() + o1, [](char c) { return c != 0; }))
      continue;
    round_group(x, r.weight.data<float>(), o0, o1, k, enc, m.gram_of(g), opt, exact, partners,
                threads);
  }
  return r;
}

}  // namespace edgeq
