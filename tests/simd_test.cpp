// Runtime SIMD dispatch (core/simd.h): every instruction-set clone this CPU can run gives the same
// bits. In one process (set_simd_level): histograms of awkward data, and a zoo YOLO11n-pose's FP32
// forward, calibration statistics, W8A16 simulation and W8A8 int8 run. Through the program
// (EDGEQ_SIMD): calibrate writes the same stats bytes and `infer --exec int8` the same outputs,
// on the real model. Levels the CPU lacks are skipped with a printed reason.
#include "core/simd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "calib/calibrator.h"
#include "calib/histogram.h"
#include "cli_util.h"
#include "core/fast_math.h"
#include "core/file_io.h"
#include "encode/quant_config.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "runtime/fake_quant.h"
#include "runtime/kernels/byte_lut.h"
#include "runtime/kernels/silu_fake_quant.h"
#include "runtime/layout.h"
#include "test_util.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;

const SimdLevel kAll[] = {SimdLevel::kScalar, SimdLevel::kAvx2, SimdLevel::kAvx512};

// The levels this CPU runs, printing the ones it lacks.
std::vector<SimdLevel> levels() {
  std::vector<SimdLevel> out;
  for (SimdLevel l : kAll) {
    if (l <= simd_supported())
      out.push_back(l);
    else
      std::printf("skipped level %s: this CPU lacks it\n", simd_level_name(l));
  }
  return out;
}

// Restores the process's level when a test ends.
struct LevelGuard {
  SimdLevel saved = simd_level();
  ~LevelGuard() { set_simd_level(saved); }
};

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// n values from a normal distribution with NaN, +-Inf, +-0, subnormals and large values
// sprinkled in (when `special`).
std::vector<float> awkward(size_t n, unsigned seed, bool special) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.5f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  if (!special) return v;
  const float odd[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-42f, -1e-42f, 3e30f, -3e30f};
  std::uniform_int_distribution<size_t> at(0, n - 1);
  for (size_t k = 0; k < n / 50 + 1; ++k) v[at(rng)] = odd[k % (sizeof odd / sizeof odd[0])];
  return v;
}

// NaN goes through exp_fast's clamp; it used to reach a float -> int conversion (undefined
// behaviour, reported by UBSan in Calibrator.NonFiniteActivationsAreCountedLikeReadOnes). The
// sanitizer build runs this; here it checks the values.
TEST(FastMath, NonFiniteInputs) {
  EXPECT_TRUE(std::isnan(exp_fast(NAN)));
  EXPECT_TRUE(std::isnan(sigmoid_fast(NAN)));
  EXPECT_TRUE(std::isnan(silu_fast(NAN)));
  EXPECT_EQ(sigmoid_fast(INFINITY), 1.0f);
  EXPECT_LT(sigmoid_fast(-INFINITY), 1e-37f);
  EXPECT_GT(exp_fast(INFINITY), 1e38f);
  std::vector<float> x = {1.0f, NAN, -2.0f, INFINITY}, y(4);
  for (SimdLevel l : levels()) {
    LevelGuard guard;
    set_simd_level(l);
    Histogram h;
    h.add(x.data(), 4);
    EXPECT_EQ(h.nan_count(), 1u);
    EXPECT_EQ(h.inf_count(), 1u);
  }
}

TEST(Simd, UnknownOrUnsupportedLevelIsRefused) {
  LevelGuard guard;
  if (simd_supported() < SimdLevel::kAvx512)
    EXPECT_THROW(set_simd_level(SimdLevel::kAvx512), Error);
  else
    std::printf("every level runs here: the refusal of a missing one is not exercised\n");
  setenv("EDGEQ_SIMD", "sse9", 1);
  auto r = test::run_cli("zoo yolo11n -o " + test::temp_dir("simd") + "/z.onnx");
  unsetenv("EDGEQ_SIMD");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("EDGEQ_SIMD=sse9: unknown (avx512, avx2 or scalar)"), std::string::npos)
      << r.err;
}

// Batches of each size, whole and sampled, with and without a pivot: scans, samples and
// histograms agree bit for bit at every level.
TEST(Simd, HistogramsAreTheSameAtEveryLevel) {
  LevelGuard guard;
  struct Case {
    size_t n;
    int stride;
    float pivot;
    bool special;
  };
  const Case cases[] = {{7, 1, NAN, true},          {1000, 1, -1.27f, true},
                        {100003, 1, NAN, true},     {100003, 8, -1.27f, false},
                        {300000, 64, -1.27f, true}, {300000, 64, NAN, false}};
  for (const Case& c : cases) {
    const std::vector<float> v = awkward(c.n, static_cast<unsigned>(c.n), c.special);
    std::vector<Histogram> hs;
    std::vector<BatchScan> scans;
    std::vector<BatchSample> samples;
    for (SimdLevel l : levels()) {
      set_simd_level(l);
      Histogram h;
      BatchSample keep;
      scans.push_back(h.add(v.data(), static_cast<int64_t>(v.size()), c.stride, c.pivot, &keep));
      hs.push_back(h);
      samples.push_back(keep);
    }
    for (size_t k = 1; k < hs.size(); ++k) {
      SCOPED_TRACE("n " + std::to_string(c.n) + " stride " + std::to_string(c.stride) + ", level " +
                   simd_level_name(levels()[k]) + " vs scalar");
      EXPECT_TRUE(hs[k] == hs[0]);
      EXPECT_EQ(hs[k].to_json().dump(), hs[0].to_json().dump());
      EXPECT_TRUE(same_bits(scans[k].lo, scans[0].lo) && same_bits(scans[k].hi, scans[0].hi));
      EXPECT_TRUE(same_bits(scans[k].below, scans[0].below) &&
                  same_bits(scans[k].above, scans[0].above));
      EXPECT_EQ(scans[k].nan, scans[0].nan);
      EXPECT_EQ(scans[k].inf, scans[0].inf);
      EXPECT_EQ(samples[k].bulk, samples[0].bulk);
      EXPECT_EQ(samples[k].tails, samples[0].tails);
    }
  }
}

// A vector lane that meets -0 before +0 must not make the minimum -0: zeros are reported as +0.
// byte_lut (the table lookup of int8 kernels) at each level against a plain lookup: every code at
// every position of a vector, lengths around the vector widths (tails), a random table.
TEST(Simd, ByteLookupIsTheTableAtEveryLevel) {
  LevelGuard guard;
  std::mt19937 rng(3);
  uint8_t table[256];
  for (uint8_t& t : table) t = static_cast<uint8_t>(rng());
  for (SimdLevel l : levels()) {
    set_simd_level(l);
    for (int64_t n : {1, 31, 32, 33, 63, 64, 65, 256, 1000, 4099}) {
      std::vector<uint8_t> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) x[size_t(i)] = static_cast<uint8_t>(i * 7 + i / 256);
      byte_lut(x.data(), y.data(), n, table);
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) wrong += y[size_t(i)] != table[x[size_t(i)]];
      EXPECT_EQ(wrong, 0) << simd_level_name(l) << ", " << n << " bytes";
    }
  }
}

// The QDQ SiLU with its output step (kernels/silu_fake_quant, hand-written at AVX2) against the
// scalar formula value by value, bit for bit: awkward values (NaN, +-Inf, +-0, subnormals, huge),
// values on a 16-bit grid as a quantized conv writes them, lengths around the 8- and 16-value
// steps, 8- and 16-bit sigmoid steps or none (the float SiLU), with and without the output step.
TEST(Simd, QdqSiluIsTheFormulaAtEveryLevel) {
  LevelGuard guard;
  const FakeQuantParams sig16{1.0f / 65535, 0, 65535}, sig8{1.0f / 255, 0, 255};
  const FakeQuantParams out16{0.00173f, -3000, 62535}, none{};
  std::vector<float> x = awkward(4099, 11, true);
  for (int k = -40000; k <= 40000; k += 7) x.push_back(float(k) * 0.000731f);  // a 16-bit grid
  for (SimdLevel l : levels()) {
    set_simd_level(l);
    for (const FakeQuantParams& inner : {sig16, sig8, none})  // none: the float SiLU
      for (const FakeQuantParams& outer : {out16, none})
        for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{15}, int64_t{16}, int64_t{17},
                          int64_t{31}, static_cast<int64_t>(x.size())}) {
          std::vector<float> y(static_cast<size_t>(n));
          silu_fake_quant_span(x.data(), y.data(), n, inner, outer);
          int64_t wrong = 0;
          for (int64_t i = 0; i < n; ++i) {
            const float v = x[size_t(i)];
            float want = inner.active() ? v * fake_quant(sigmoid_fast(v), inner) : silu_fast(v);
            if (outer.active()) want = fake_quant(want, outer);
            // A NaN's sign is the compiler's choice of operand order (the float SiLU passes a
            // NaN through; the steps clip it to the lowest code).
            const bool both_nan = std::isnan(y[size_t(i)]) && std::isnan(want);
            wrong += !same_bits(y[size_t(i)], want) && !(both_nan && !inner.active());
          }
          EXPECT_EQ(wrong, 0) << simd_level_name(l) << ", " << n << " values, inner step "
                              << inner.scale << (outer.active() ? ", output step" : "");
        }
    // In place, as the executor may run it.
    std::vector<float> y = x;
    silu_fake_quant_span(y.data(), y.data(), int64_t(y.size()), sig16, out16);
    int64_t wrong = 0;
    for (size_t i = 0; i < x.size(); ++i)
      wrong += !same_bits(y[i], fake_quant(x[i] * fake_quant(sigmoid_fast(x[i]), sig16), out16));
    EXPECT_EQ(wrong, 0) << simd_level_name(l) << ", in place";
  }
}

// A layout conversion's observer that counts and sums what it is shown (from any thread).
struct SeenValues {
  std::mutex m;
  double sum = 0;
  int64_t n = 0;
  const LayoutObserver observer = [this](const float* v, int64_t k) {
    std::lock_guard<std::mutex> lock(m);
    for (int64_t i = 0; i < k; ++i) sum += v[i];
    n += k;
  };
};

// An RGB float image from NCHW to NHWC (runtime/interleave3 at each level): every value in its
// place, the observer given each source value once; widths around the 16- and 8-pixel steps
// and past the 8192-pixel work blocks.
TEST(Simd, ThreeChannelLayoutConversionAtEveryLevel) {
  LevelGuard guard;
  for (SimdLevel l : levels()) {
    set_simd_level(l);
    for (Shape s : {Shape{1, 3, 1, 1}, Shape{1, 3, 1, 7}, Shape{1, 3, 1, 17}, Shape{2, 3, 5, 9},
                    Shape{1, 3, 97, 101}}) {
      const int64_t n = s[0], h = s[2], w = s[3];
      Tensor x(DType::kFloat32, s);
      for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i) + 0.5f;
      Tensor y(DType::kFloat32, {n, h, w, 3});
      SeenValues seen;
      nchw_to_nhwc(x, y, &seen.observer);
      int64_t wrong = 0;
      double sum = 0;
      for (int64_t a = 0; a < n; ++a)
        for (int64_t k = 0; k < 3; ++k)
          for (int64_t i = 0; i < h * w; ++i) {
            const float v = x.data<float>()[(a * 3 + k) * h * w + i];
            wrong += y.data<float>()[(a * h * w + i) * 3 + k] != v;
            sum += v;
          }
      EXPECT_EQ(wrong, 0) << simd_level_name(l) << " " << shape_str(s);
      EXPECT_EQ(seen.n, x.numel()) << simd_level_name(l) << " " << shape_str(s);
      EXPECT_EQ(seen.sum, sum) << simd_level_name(l) << " " << shape_str(s);
    }
  }
}

// An image's uint8 codes from NCHW to NHWC (runtime/interleave3's byte shuffles at each level):
// every byte in its place, widths around the 16-pixel step and past the work blocks.
TEST(Simd, ThreeChannelCodesLayoutConversionAtEveryLevel) {
  LevelGuard guard;
  for (SimdLevel l : levels()) {
    set_simd_level(l);
    for (Shape s : {Shape{1, 3, 1, 1}, Shape{1, 3, 1, 15}, Shape{1, 3, 1, 33}, Shape{2, 3, 5, 9},
                    Shape{1, 3, 97, 101}, Shape{1, 3, 320, 320}}) {
      const int64_t n = s[0], h = s[2], w = s[3];
      Tensor x(DType::kUInt8, s);
      for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = uint8_t(i * 7 + i / 256);
      Tensor y(DType::kUInt8, {n, h, w, 3});
      nchw_to_nhwc(x, y);
      int64_t wrong = 0;
      for (int64_t a = 0; a < n; ++a)
        for (int64_t k = 0; k < 3; ++k)
          for (int64_t i = 0; i < h * w; ++i)
            wrong += y.data<uint8_t>()[(a * h * w + i) * 3 + k] !=
                     x.data<uint8_t>()[(a * 3 + k) * h * w + i];
      EXPECT_EQ(wrong, 0) << simd_level_name(l) << " " << shape_str(s);
    }
  }
}

// NHWC <-> NCHW of floats (runtime/transpose_tile: 8 x 8 register blocks, scalar edges; one
// channel or one pixel: a copy) at every level, both directions against index arithmetic: sizes
// below, at and past the 8-element blocks and the 32-element tiles, a channel count past the
// 4096-column block, batches, empty tensors; the observer sees each source value once.
TEST(Simd, LayoutConversionAtEveryLevel) {
  LevelGuard guard;
  for (SimdLevel l : levels()) {
    set_simd_level(l);
    for (Shape s : {Shape{1, 1, 1, 1}, Shape{1, 7, 1, 9}, Shape{1, 8, 2, 4}, Shape{1, 65, 80, 80},
                    Shape{2, 51, 5, 7}, Shape{1, 33, 31, 1}, Shape{1, 4100, 3, 5},
                    Shape{2, 1, 5, 7}, Shape{2, 9, 1, 1}, Shape{1, 1, 0, 5}, Shape{1, 6, 0, 3}}) {
      const int64_t n = s[0], c = s[1], hw = s[2] * s[3];
      Tensor x(DType::kFloat32, s);
      for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i) + 0.25f;
      Tensor y(DType::kFloat32, {n, s[2], s[3], c}), back(DType::kFloat32, s);
      SeenValues seen;
      nchw_to_nhwc(x, y, &seen.observer);
      nhwc_to_nchw(y, back);
      double sum = 0;
      for (int64_t i = 0; i < x.numel(); ++i) sum += x.data<float>()[i];
      EXPECT_EQ(seen.n, x.numel()) << simd_level_name(l) << " " << shape_str(s);
      EXPECT_EQ(seen.sum, sum) << simd_level_name(l) << " " << shape_str(s);
      int64_t wrong = 0, wrong_back = 0;
      for (int64_t a = 0; a < n; ++a)
        for (int64_t k = 0; k < c; ++k)
          for (int64_t i = 0; i < hw; ++i) {
            const int64_t at = (a * c + k) * hw + i;
            wrong += y.data<float>()[(a * hw + i) * c + k] != x.data<float>()[at];
            wrong_back += back.data<float>()[at] != x.data<float>()[at];
          }
      EXPECT_EQ(wrong, 0) << simd_level_name(l) << " " << shape_str(s);
      EXPECT_EQ(wrong_back, 0) << simd_level_name(l) << " " << shape_str(s);
    }
  }
}

TEST(Simd, ZeroSignDoesNotDependOnTheLanes) {
  LevelGuard guard;
  std::vector<float> v(4096, 1.0f);
  v[1] = -0.0f;   // lane 1 of any width meets -0 first
  v[16] = 0.0f;   // lane 0 of 8 or 16 lanes meets +0
  v[40] = -0.0f;  // and more -0 later
  for (SimdLevel l : levels()) {
    set_simd_level(l);
    Histogram h;
    BatchScan s = h.add(v.data(), static_cast<int64_t>(v.size()));
    EXPECT_FALSE(std::signbit(h.min())) << simd_level_name(l);
    EXPECT_FALSE(std::signbit(s.lo)) << simd_level_name(l);
    EXPECT_EQ(h.min(), 0.0f);
  }
}

// The zoo YOLO11n-pose (untrained weights) on a random image: FP32 outputs, statistics (sampled
// histograms, derived SiLU / Sigmoid), W8A16 simulated and W8A8 int8 outputs are the same at
// every level.
TEST(Simd, ModelResultsAreTheSameAtEveryLevel) {
  LevelGuard guard;
  const Graph g = build_yolo11("yolo11n-pose");
  const std::string input = g.inputs.at(0).name;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Tensor x(DType::kFloat32, {1, 3, 640, 640});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = u(rng);
  const std::string dir = test::temp_dir("simd_model");

  struct Result {
    std::map<std::string, Tensor> fp32, w8a16, int8;
    std::string stats;
  };
  std::vector<Result> results;
  for (SimdLevel l : levels()) {
    set_simd_level(l);
    Result r;
    ExecutorOptions one;
    one.threads = 1;
    r.fp32 = Executor(g, one).run({{input, x}});
    CalibratorOptions co;
    co.executor.threads = 1;
    Calibrator cal(g, "test", "random", co);
    cal.add({{input, x}});
    const Stats s = cal.take();
    save_stats(s, dir + "/s.stats");
    r.stats = read_file(dir + "/s.stats");
    const Graph w8a16 = test::export_qdq_model(g, s, config_for_scheme(Scheme::kW8A16)).graph;
    r.w8a16 = Executor(w8a16, one).run({{input, x}});
    const Graph w8a8 = test::export_qdq_model(g, s, config_for_scheme(Scheme::kW8A8)).graph;
    ExecutorOptions int8 = one;
    int8.exec = ExecMode::kInt8;
    r.int8 = Executor(w8a8, int8).run({{input, x}});
    results.push_back(std::move(r));
  }
  for (size_t k = 1; k < results.size(); ++k) {
    SCOPED_TRACE(std::string("level ") + simd_level_name(levels()[k]) + " vs scalar");
    EXPECT_TRUE(results[k].stats == results[0].stats);
    using Outputs = std::map<std::string, Tensor> Result::*;
    for (Outputs which : {&Result::fp32, &Result::w8a16, &Result::int8})
      for (const auto& [name, t] : results[0].*which)
        EXPECT_TRUE(same_bits((results[k].*which).at(name), t)) << name;
  }
}

// `edgeq ARGS` with EDGEQ_SIMD=level.
test::CliResult run_at(SimdLevel l, const std::string& args) {
  setenv("EDGEQ_SIMD", simd_level_name(l), 1);
  auto r = test::run_cli(args);
  unsetenv("EDGEQ_SIMD");
  return r;
}

// Through the program, forcing each level: calibrate writes the same stats bytes, and infer runs
// a W8A8 model in int8 to the same output bytes, on the real yolo11n-pose and coco8-pose.
TEST(Simd, ProgramWritesTheSameBytesAtEveryLevel) {
  const std::string dir = test::temp_dir("simd_cli");
  const std::string model = test::real_model_path(), images = test::coco8_pose_dir() + "/images";
  std::string image;
  for (const auto& e : fs::recursive_directory_iterator(images))
    if (e.is_regular_file() && (image.empty() || e.path().string() < image))
      image = e.path().string();
  ASSERT_FALSE(image.empty());
  std::string first_stats, first_out;
  for (SimdLevel l : levels()) {
    const std::string tag = dir + "/" + simd_level_name(l);
    auto c = run_at(l, "calibrate --model " + test::shell_quote(model) + " --images " +
                           test::shell_quote(images) + " --n 4 --threads 2 --out " +
                           test::shell_quote(tag + ".stats"));
    ASSERT_EQ(c.exit_code, 0) << c.err;
    if (first_stats.empty()) {
      first_stats = tag + ".stats";
      auto qz = test::run_cli("quantize --model " + test::shell_quote(model) + " --stats " +
                              test::shell_quote(first_stats) + " --scheme w8a8 --out " +
                              test::shell_quote(dir + "/w8a8.onnx"));
      ASSERT_EQ(qz.exit_code, 0) << qz.err;
    } else {
      EXPECT_TRUE(read_file(tag + ".stats") == read_file(first_stats)) << simd_level_name(l);
    }
    auto in = run_at(l, "infer --model " + test::shell_quote(dir + "/w8a8.onnx") + " --image " +
                            test::shell_quote(image) + " --exec int8 --threads 1 --out " +
                            test::shell_quote(tag + "_out"));
    ASSERT_EQ(in.exit_code, 0) << in.err;
    if (first_out.empty()) {
      first_out = tag + "_out";
      continue;
    }
    int files = 0;
    for (const auto& e : fs::directory_iterator(first_out)) {
      ++files;
      const std::string other = tag + "_out/" + e.path().filename().string();
      EXPECT_TRUE(fs::exists(other) && read_file(other) == read_file(e.path().string())) << other;
    }
    EXPECT_GT(files, 0);
  }
}

}  // namespace
}  // namespace edgeq
