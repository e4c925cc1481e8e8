// Calibrator: statistics it derives instead of reading (pass-through values, Sigmoid and SiLU of a
// read value) against reading every value, with every value binned and with sampled histograms.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "calib/calibration_run.h"
#include "calib/calibrator.h"
#include "calib/range_scheme.h"
#include "core/error.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {

// x [1,8,64,64] -> Conv 3x3 -> t [1,16,64,64]; s = Sigmoid(t); y = Mul(s, t) (SiLU, operands
// swapped); a, b = Split(y, 2 x 8 channels); c = Concat(a, y); r = Reshape(c, [1,24,4096]);
// out = Transpose(r, [0,2,1]); z = Sigmoid(x) (no Mul).
Graph silu_split_concat() {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 8, 64, 64}}};
  g.outputs = {{"out", DType::kFloat32, {1, 4096, 24}},
               {"b", DType::kFloat32, {1, 8, 64, 64}},
               {"z", DType::kFloat32, {1, 8, 64, 64}}};
  Tensor w(DType::kFloat32, {16, 8, 3, 3});
  std::mt19937 rng(7);
  std::normal_distribution<float> n(0.f, 0.4f);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = n(rng);
  g.initializers["w"] = w;
  g.initializers["shape"] = Tensor::from_vector<int64_t>({3}, {1, 24, 4096});
  Node conv = test::node("conv", "Conv", {"x", "w"}, {"t"});
  conv.attrs["pads"] = test::ints_attr({1, 1, 1, 1});
  g.nodes.push_back(conv);
  g.nodes.push_back(test::node("sig", "Sigmoid", {"t"}, {"s"}));
  g.nodes.push_back(test::node("mul", "Mul", {"s", "t"}, {"y"}));
  Node split = test::node("split", "Split", {"y"}, {"a", "b"});
  split.attrs["axis"] = test::int_attr(1);
  g.nodes.push_back(split);
  Node cat = test::node("cat", "Concat", {"a", "y"}, {"c"});
  cat.attrs["axis"] = test::int_attr(1);
  g.nodes.push_back(cat);
  g.nodes.push_back(test::node("reshape", "Reshape", {"c", "shape"}, {"r"}));
  Node tr = test::node("tr", "Transpose", {"r"}, {"out"});
  tr.attrs["perm"] = test::ints_attr({0, 2, 1});
  g.nodes.push_back(tr);
  g.nodes.push_back(test::node("zsig", "Sigmoid", {"x"}, {"z"}));
  return g;
}

// x [1,8,64,64] -> s = Sigmoid(x); y = Mul(x, s): a SiLU straight on the input, which holds
// +-Inf in inputs_with_non_finite() (a Conv would turn those into NaN).
Graph silu_of_input() {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 8, 64, 64}}};
  g.outputs = {{"y", DType::kFloat32, {1, 8, 64, 64}}};
  g.nodes.push_back(test::node("sig", "Sigmoid", {"x"}, {"s"}));
  g.nodes.push_back(test::node("mul", "Mul", {"x", "s"}, {"y"}));
  return g;
}

std::vector<Tensor> inputs(int n) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  std::vector<Tensor> out;
  for (int k = 0; k < n; ++k) {
    Tensor x(DType::kFloat32, {1, 8, 64, 64});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = u(rng);
    out.push_back(x);
  }
  return out;
}

// Inputs holding +Inf and -Inf at scattered places, and NaN at one when `nan` (a Conv spreads
// NaN around each of them).
std::vector<Tensor> inputs_with_non_finite(int n, bool nan) {
  std::vector<Tensor> out = inputs(n);
  for (Tensor& x : out) {
    float* v = x.data<float>();
    for (int64_t i = 97; i < x.numel(); i += 3001) v[i] = i % 2 ? INFINITY : -INFINITY;
    if (nan) v[5000] = NAN;
  }
  return out;
}

Stats calibrate(const Graph& g, bool derive, int stride, std::vector<std::string>* derived,
                const std::vector<Tensor>& xs = inputs(3)) {
  CalibratorOptions opt;
  opt.derive = derive;
  opt.histogram_stride = stride;
  Calibrator cal(g, "test", "random", opt);
  for (const Tensor& x : xs) cal.add({{"x", x}});
  if (derived) *derived = cal.derived();
  return cal.take();
}

}  // namespace

TEST(Calibrator, DerivesPassThroughSigmoidAndSiluValues) {
  Graph g = silu_split_concat();
  std::vector<std::string> derived;
  calibrate(g, true, 64, &derived);
  std::set<std::string> d(derived.begin(), derived.end());
  EXPECT_EQ(d, (std::set<std::string>{"s", "y", "z", "c", "r", "out"}));
}

// Every value binned: derived statistics equal read ones exactly (the Concat's merged histogram
// included: merging is exact). Sampled: counts, min and max stay exact and the distributions
// agree (derived values are binned at their input's sample and tails, read ones at their own).
TEST(Calibrator, DerivedStatisticsEqualReadOnes) {
  Graph g = silu_split_concat();
  for (int stride : {1, 64}) {
    Stats read = calibrate(g, false, stride, nullptr);
    Stats derived = calibrate(g, true, stride, nullptr);
    ASSERT_EQ(read.values.size(), derived.values.size());
    EXPECT_EQ(derived.images, 3);
    for (const auto& [name, h] : read.values) {
      const Histogram& k = derived.at(name);
      EXPECT_EQ(k.count(), h.count()) << name;
      EXPECT_EQ(k.min(), h.min()) << name << " stride " << stride;
      EXPECT_EQ(k.max(), h.max()) << name << " stride " << stride;
      if (stride == 1) {
        EXPECT_TRUE(k == h) << name;
      }
      const double span = double(h.max()) - h.min();
      for (double q : {0.001, 0.01, 0.5, 0.99, 0.999})
        EXPECT_NEAR(k.quantile(q), h.quantile(q), 0.02 * span) << name << " q " << q;
    }
    // The SiLU reaches its minimum (-0.2785) on these inputs, inside the range, not at an end.
    EXPECT_NEAR(derived.at("y").min(), -0.2785, 1e-3);
  }
}

// The calibrator streams values, bins sampled batches after the forward pass and several values
// at once across threads: none of that may change a read value's statistics, which must equal
// Stats::observe of the whole value fed through a plain hook.
TEST(Calibrator, ReadStatisticsEqualObservingEachValueWhole) {
  Graph g = silu_split_concat();
  for (int stride : {1, 64}) {
    Stats cal = calibrate(g, false, stride, nullptr);
    Stats ref;
    ref.histogram_stride = stride;
    ExecutorOptions opt;
    opt.threads = 2;
    Executor ex(g, opt);
    ex.add_hook(
        "*", [&](const std::string& v, const Tensor& t) { ref.observe(v, t); },
        HookView::kAsStored);
    for (const Tensor& x : inputs(3)) ex.run({{"x", x}});
    ASSERT_EQ(ref.values.size(), cal.values.size());
    for (const auto& [name, h] : ref.values) {
      EXPECT_TRUE(cal.at(name) == h) << name << " stride " << stride;
      EXPECT_EQ(cal.at(name).sampled(), stride > 1) << name;
    }
  }
}

// NaN and +-Inf take the calibrator's other path (values binned and Sigmoid / SiLU derived from
// every value at once, not from a sample after the pass): read values still equal observing each
// value whole, and derived ones count NaN, Inf and finite values as reading them does.
TEST(Calibrator, NonFiniteActivationsAreCountedLikeReadOnes) {
  for (bool nan : {false, true})
    for (int stride : {1, 64})
      for (const Graph& g : {silu_split_concat(), silu_of_input()}) {
        const std::vector<Tensor> xs = inputs_with_non_finite(2, nan);
        Stats read = calibrate(g, false, stride, nullptr, xs);
        Stats derived = calibrate(g, true, stride, nullptr, xs);
        Stats ref;
        ref.histogram_stride = stride;
        Executor ex(g);
        ex.add_hook(
            "*", [&](const std::string& v, const Tensor& t) { ref.observe(v, t); },
            HookView::kAsStored);
        for (const Tensor& x : xs) ex.run({{"x", x}});
        EXPECT_GT(ref.at("x").inf_count(), 0u);
        EXPECT_GT(ref.at("y").nan_count() + ref.at("y").inf_count(), 0u);
        for (const auto& [name, h] : ref.values) {
          EXPECT_TRUE(read.at(name) == h) << name << " stride " << stride;
          const Histogram& d = derived.at(name);
          EXPECT_EQ(d.count(), h.count()) << name << " stride " << stride;
          EXPECT_EQ(d.nan_count(), h.nan_count()) << name << " stride " << stride;
          EXPECT_EQ(d.inf_count(), h.inf_count()) << name << " stride " << stride;
          EXPECT_EQ(d.min(), h.min()) << name << " stride " << stride;
          EXPECT_EQ(d.max(), h.max()) << name << " stride " << stride;
        }
      }
}

// add()'s `alongside` task (calibrate reads its next image there) runs once per image, with or
// without sampled values to bin, and leaves the statistics as they are without it.
TEST(Calibrator, AlongsideTaskRunsOncePerImageAndChangesNothing) {
  Graph g = silu_split_concat();
  for (int stride : {1, 64}) {
    CalibratorOptions opt;
    opt.histogram_stride = stride;
    Calibrator plain(g, "test", "random", opt), with(g, "test", "random", opt);
    int runs = 0;
    for (const Tensor& x : inputs(3)) {
      plain.add({{"x", x}});
      with.add({{"x", x}}, [&] { ++runs; });
    }
    EXPECT_EQ(runs, 3) << stride;
    Stats a = plain.take(), b = with.take();
    ASSERT_EQ(a.values.size(), b.values.size());
    for (const auto& [name, h] : a.values) EXPECT_TRUE(b.at(name) == h) << name << " " << stride;
    EXPECT_THROW(with.add({{"x", inputs(1)[0]}}), Error);  // taken: no more images
  }
}

// calibrate_images: any number of workers gives the statistics of one calibrator over all the
// images (the workers' statistics merge exactly), for every value, sampled or not.
TEST(CalibrationRun, WorkersGiveTheStatisticsOfOneCalibrator) {
  Graph g = silu_split_concat();
  const std::vector<Tensor> xs = inputs(7);
  for (int stride : {1, 64}) {
    CalibratorOptions opt;
    opt.histogram_stride = stride;
    opt.executor.threads = 1;
    Calibrator one(g, "test", "random", opt);
    for (const Tensor& x : xs) one.add({{"x", x}});
    const Stats ref = one.take();
    for (int workers : {1, 2, 3}) {
      CalibrationRunOptions run_opt;
      run_opt.calibrator = opt;
      run_opt.workers = workers;
      int images = 0;
      CalibrationRun run = calibrate_images(
          g, "test", "random", "x", xs.size(), [&](size_t i) { return xs.at(i); }, run_opt,
          [&] { ++images; });
      EXPECT_EQ(run.used, xs.size());
      EXPECT_EQ(images, static_cast<int>(xs.size()));
      EXPECT_EQ(run.stats.images, ref.images);
      ASSERT_EQ(run.stats.values.size(), ref.values.size());
      for (const auto& [name, h] : ref.values)
        EXPECT_TRUE(run.stats.at(name) == h) << name << " workers " << workers << " " << stride;
      EXPECT_EQ(run.derived.size(), 6u);
    }
  }
}

// An image the loader cannot read (edgeq::Error) is skipped and reported; any other failure ends
// the run and reaches the caller; a run with no readable image is refused.
TEST(CalibrationRun, UnreadableImagesAreSkippedAndOtherErrorsStopTheRun) {
  Graph g = silu_split_concat();
  const std::vector<Tensor> xs = inputs(5);
  CalibrationRunOptions opt;
  opt.workers = 2;
  opt.calibrator.executor.threads = 1;
  std::vector<std::string> skipped;
  CalibrationRun run = calibrate_images(
      g, "test", "random", "x", xs.size(),
      [&](size_t i) {
        if (i == 1 || i == 3) fail("cannot decode image img", i);
        return xs.at(i);
      },
      opt, nullptr, [&](const std::string& why) { skipped.push_back(why); });
  EXPECT_EQ(run.used, 3u);
  EXPECT_EQ(run.unreadable, 2u);
  EXPECT_EQ(run.stats.images, 3);
  std::sort(skipped.begin(), skipped.end());
  EXPECT_EQ(skipped,
            (std::vector<std::string>{"cannot decode image img1", "cannot decode image img3"}));

  EXPECT_THROW(calibrate_images(
                   g, "test", "random", "x", xs.size(),
                   [&](size_t i) -> Tensor {
                     if (i == 2) throw std::runtime_error("disk on fire");
                     return xs.at(i);
                   },
                   opt),
               std::runtime_error);
  try {
    calibrate_images(
        g, "test", "random", "x", 2, [&](size_t) -> Tensor { fail("cannot decode image"); }, opt);
    ADD_FAILURE() << "no readable image, yet no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no readable image"), std::string::npos) << e.what();
  }
}

// The defaults (derived values, sampled histograms) against reading and binning every value, on
// the real model and coco8-pose: counts and maxima exact, minima up to rounding at a SiLU's flat
// bottom, and the encoding ranges every scheme picks close to the exact ones.
TEST(Calibrator, DefaultStatisticsGiveTheRangesOfExactOnesOnTheRealModel) {
  EDGEQ_REQUIRE_REAL_DATA();
  Graph g = load_onnx(test::real_model_path());
  CalibratorOptions exact_opt, fast_opt;
  exact_opt.derive = false;
  exact_opt.histogram_stride = 1;
  // The yardstick: how much the exact ranges move when one of the 8 images is left out.
  Calibrator exact(g, "", "", exact_opt), fast(g, "", "", fast_opt), seven(g, "", "", exact_opt);
  std::vector<std::string> paths = list_images(test::coco8_pose_dir() + "/images");
  for (size_t i = 0; i < paths.size(); ++i) {
    Tensor x = preprocess_image(read_image(paths[i]), 640, 640, nullptr);
    exact.add({{"images", x}});
    fast.add({{"images", x}});
    if (i > 0) seven.add({{"images", x}});
  }
  Stats se = exact.take(), sf = fast.take(), s7 = seven.take();
  ASSERT_EQ(se.values.size(), sf.values.size());
  EXPECT_GE(fast.derived().size(), 200u);
  double worst_min = 0;
  for (const auto& [name, h] : se.values) {
    const Histogram& k = sf.at(name);
    EXPECT_EQ(k.count(), h.count()) << name;
    EXPECT_EQ(k.max(), h.max()) << name;
    // A SiLU's minimum comes from the inputs nearest its flat bottom; rounding there can make a
    // neighbouring input's SiLU one ulp lower.
    EXPECT_NEAR(k.min(), h.min(), 1e-6) << name;
    worst_min = std::max(worst_min, std::fabs(double(k.min()) - h.min()));
  }
  std::printf("%zu values: %zu read, %zu derived; largest difference of a minimum %.3g\n",
              sf.values.size(), fast.observed().size(), fast.derived().size(), worst_min);
  // Range endpoints, as a fraction of the exact observed span, per scheme and width: the default
  // statistics against the exact ones, and 7 of the 8 images against all 8 (exact both).
  auto percentiles = [](std::vector<double> e) {
    std::sort(e.begin(), e.end());
    return std::array<double, 3>{e[e.size() / 2], e[e.size() * 95 / 100], e.back()};
  };
  for (const char* spec : {"minmax", "percentile", "entropy", "mse"}) {
    auto scheme = make_range_scheme(parse<RangeMethod>(spec));
    for (int bits : {8, 16}) {
      std::vector<double> sampled_err, image_err;
      for (const auto& [name, h] : se.values) {
        const double span = std::max(1e-6, double(h.max()) - h.min());
        Range re = scheme->compute(h, {bits, false});
        auto off = [&](const Histogram& other) {
          Range r = scheme->compute(other, {bits, false});
          return std::max(std::fabs(re.lo - r.lo), std::fabs(re.hi - r.hi)) / span;
        };
        sampled_err.push_back(off(sf.at(name)));
        image_err.push_back(off(s7.at(name)));
      }
      auto a = percentiles(sampled_err), b = percentiles(image_err);
      std::printf(
          "  %-10s %2d bit: default vs exact: median %.2g, p95 %.2g, max %.2g of the span;"
          " 7 vs 8 images: median %.2g, p95 %.2g\n",
          spec, bits, a[0], a[1], a[2], b[0], b[1]);
      if (std::string(spec) == "minmax") {
        EXPECT_LE(a[2], 1e-6);
      }
      // Sampling moves ranges less than leaving out one image of eight does; entropy, whose
      // search reads which fine bins are empty, may move up to 3.5 times as much at the 95th
      // percentile (use --histogram-stride 1 for it when that matters).
      const double allowance = std::string(spec) == "entropy" ? 3.5 : 1.0;
      EXPECT_LE(a[0], std::max(1e-6, b[0])) << spec << " " << bits;
      EXPECT_LE(a[1], std::max(1e-6, allowance * b[1])) << spec << " " << bits;
    }
  }
}

}  // namespace edgeq
