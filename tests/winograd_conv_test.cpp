#include "runtime/kernels/winograd_conv.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/dnnl_context.h"
#include "runtime/fake_quant.h"

namespace edgeq {
namespace {

// WinogradConv runs on any CPU with AVX2 and FMA, whatever level oneDNN and edgeq's loops use.
class WinogradConvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
      GTEST_SKIP() << "this CPU has no AVX2 with FMA";
  }
};

struct Case {
  int64_t batch, ic, oc, h, w, pad_t, pad_l, pad_b, pad_r;
};

ConvGeometry geometry(const Case& c) {
  ConvGeometry g;
  g.kernel = {3, 3};
  g.strides = {1, 1};
  g.dilations = {1, 1};
  g.pad_l = {c.pad_t, c.pad_l};
  g.pad_r = {c.pad_b, c.pad_r};
  g.src_dims = {c.batch, c.ic, c.h, c.w};
  g.dst_dims = {c.batch, c.oc, c.h + c.pad_t + c.pad_b - 2, c.w + c.pad_l + c.pad_r - 2};
  return g;
}

std::vector<float> random_values(size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// A convolution of case `c` with random inputs (NHWC), weights [O, I, 3, 3] and bias.
struct Problem {
  ConvGeometry g;
  std::vector<float> x, w, b;
};
Problem random_problem(const Case& c, std::mt19937& rng) {
  return {geometry(c), random_values(c.batch * c.h * c.w * c.ic, rng, 2.0f),
          random_values(c.oc * c.ic * 9, rng, 0.5f), random_values(c.oc, rng)};
}

struct Reference {
  std::vector<double> y, magnitude;  // NHWC outputs, and the sum of |terms| of each
};

// The convolution by its definition, in double: x NHWC, w [O, I, 3, 3].
Reference reference(const ConvGeometry& g, const std::vector<float>& x, const std::vector<float>& w,
                    const std::vector<float>& b) {
  const int64_t n = g.src_dims[0], ic = g.src_dims[1], h = g.src_dims[2], wd = g.src_dims[3];
  const int64_t oc = g.dst_dims[1], oh = g.dst_dims[2], ow = g.dst_dims[3];
  Reference r;
  r.y.assign(n * oh * ow * oc, 0.0);
  r.magnitude.assign(r.y.size(), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t oy = 0; oy < oh; ++oy)
      for (int64_t ox = 0; ox < ow; ++ox)
        for (int64_t o = 0; o < oc; ++o) {
          double acc = b.empty() ? 0.0 : b[o], mag = std::fabs(acc);
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t y = oy + ky - g.pad_l[0], xx = ox + kx - g.pad_l[1];
              if (y < 0 || y >= h || xx < 0 || xx >= wd) continue;
              for (int64_t c = 0; c < ic; ++c) {
                const double t = double(w[((o * ic + c) * 3 + ky) * 3 + kx]) *
                                 double(x[((i * h + y) * wd + xx) * ic + c]);
                acc += t;
                mag += std::fabs(t);
              }
            }
          const size_t at = ((i * oh + oy) * ow + ox) * oc + o;
          r.y[at] = acc;
          r.magnitude[at] = mag;
        }
  return r;
}

std::vector<float> run(const WinogradConv& conv, const ConvGeometry& g,
                       const std::vector<float>& x) {
  std::vector<float> y(g.dst_dims[0] * g.dst_dims[1] * g.dst_dims[2] * g.dst_dims[3], NAN);
  conv.run(x.data(), y.data());
  return y;
}

const Case kCases[] = {
    {1, 8, 16, 12, 12, 1, 1, 1, 1},   // the fewest channels it runs
    {1, 32, 16, 8, 8, 1, 1, 1, 1},    // same padding, even sizes
    {1, 51, 51, 7, 9, 1, 1, 1, 1},    // channels off the vector width, odd sizes (partial tiles)
    {1, 40, 17, 6, 5, 0, 0, 0, 0},    // no padding
    {1, 64, 24, 5, 13, 1, 0, 0, 1},   // uneven padding
    {2, 33, 8, 3, 3, 2, 2, 2, 2},     // a batch of two, wide padding
    {1, 32, 64, 1, 1, 1, 1, 1, 1},    // one pixel
    {1, 96, 40, 22, 26, 1, 1, 1, 1},  // several blocks of tiles, partial tiles
};

TEST_F(WinogradConvTest, MatchesTheDefinitionOnRandomInputs) {
  std::mt19937 rng(7);
  for (const Case& c : kCases) {
    const auto [g, x, w, b] = random_problem(c, rng);
    for (bool with_bias : {true, false}) {
      const std::vector<float> bias = with_bias ? b : std::vector<float>();
      const Reference ref = reference(g, x, w, bias);
      for (bool silu : {false, true}) {
        WinogradConv conv(g, w.data(), with_bias ? bias.data() : nullptr, silu);
        const auto y = run(conv, g, x);
        int bad = 0;
        for (size_t i = 0; i < y.size(); ++i) {
          double want = ref.y[i];
          if (silu) want = want / (1.0 + std::exp(-want));
          // F(2x2, 3x3)'s transforms add a few roundings of the terms' size.
          if (!(std::fabs(y[i] - want) <= 1e-5 * ref.magnitude[i] + 1e-6)) ++bad;
        }
        EXPECT_EQ(bad, 0) << "ic " << c.ic << " oc " << c.oc << " " << c.h << "x" << c.w
                          << (with_bias ? " bias" : "") << (silu ? " silu" : "");
      }
    }
  }
}

TEST_F(WinogradConvTest, OutputStepIsTheFakeQuantOfTheConvolution) {
  std::mt19937 rng(11);
  const auto [g, x, w, b] = random_problem({1, 51, 51, 7, 9, 1, 1, 1, 1}, rng);
  const FakeQuantParams fq{0.01f, -128.f, 127.f};
  auto plain = run(WinogradConv(g, w.data(), b.data(), false), g, x);
  const auto stepped = run(WinogradConv(g, w.data(), b.data(), false, fq), g, x);
  fake_quant_span(plain.data(), plain.data(), static_cast<int64_t>(plain.size()), fq);
  EXPECT_EQ(std::memcmp(plain.data(), stepped.data(), plain.size() * sizeof(float)), 0);
  int clipped = 0;
  for (float v : stepped) clipped += v == 127 * 0.01f || v == -128 * 0.01f;
  EXPECT_GT(clipped, 0) << "the case should reach the clip";
}

TEST_F(WinogradConvTest, SameBitsAtAnyThreadCount) {
  std::mt19937 rng(3);
  const auto [g, x, w, b] = random_problem({1, 64, 51, 20, 20, 1, 1, 1, 1}, rng);
  const WinogradConv conv(g, w.data(), b.data(), true);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = run(conv, g, x);
  // (Up to 3: clang's OpenMP runtime leaves a larger team's thread records to LeakSanitizer.)
  for (int threads : {2, 3}) {
    omp_set_num_threads(threads);
    const auto y = run(conv, g, x);
    EXPECT_EQ(std::memcmp(one.data(), y.data(), y.size() * sizeof(float)), 0) << threads;
  }
  omp_set_num_threads(saved);
}

TEST_F(WinogradConvTest, RunsOnlyTheShapesItIsFasterForAtOneDnnsAvx2Level) {
  const ConvGeometry base = geometry({1, 32, 32, 8, 8, 1, 1, 1, 1});
  // Where oneDNN runs its AVX2 kernels (this CPU, or capped with ONEDNN_MAX_CPU_ISA=AVX2).
  EXPECT_EQ(WinogradConv::supports(base), onednn_runs_avx2());
  ConvGeometry g = base;
  g.strides = {2, 2};
  EXPECT_FALSE(WinogradConv::supports(g));
  g = base;
  g.dilations = {2, 2};
  EXPECT_FALSE(WinogradConv::supports(g));
  g = base;
  g.group = 32;
  EXPECT_FALSE(WinogradConv::supports(g));
  g = base;
  g.kernel = {1, 1};
  EXPECT_FALSE(WinogradConv::supports(g));
  EXPECT_FALSE(WinogradConv::supports(geometry({1, 4, 32, 8, 8, 1, 1, 1, 1})));
}

}  // namespace
}  // namespace edgeq
