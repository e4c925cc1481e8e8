#include "runtime/kernels/pointwise_conv.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <random>

#include "core/simd.h"
#include "graph_builders.h"
#include "runtime/executor.h"
#include "runtime/fake_quant.h"
#include "runtime/layout.h"
#include "runtime/layout_choice.h"

namespace edgeq {
namespace {

Tensor random(Shape s, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  Tensor t(DType::kFloat32, std::move(s));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

// y[n][o][p] = b[o], then + w[o][c] * x[n][c][p] for c = 0, 1, ...: the order the kernel promises.
Tensor ordered_sum(const Tensor& x, const Tensor& w, const Tensor* b) {
  const int64_t n = x.dim(0), c = x.dim(1), p = x.dim(2) * x.dim(3), o = w.dim(0);
  Tensor y(DType::kFloat32, {n, o, x.dim(2), x.dim(3)});
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < o; ++k)
      for (int64_t q = 0; q < p; ++q) {
        float acc = b ? b->data<float>()[k] : 0.0f;
        for (int64_t j = 0; j < c; ++j) {
          const float product = w.data<float>()[k * c + j] * x.data<float>()[(i * c + j) * p + q];
          acc += product;
        }
        y.data<float>()[(i * o + k) * p + q] = acc;
      }
  return y;
}

struct Built {
  Node node;
  std::vector<ValueDesc> descs;
};

Built pointwise_node(const Tensor& x, const Tensor& w, const Tensor* b) {
  Built r;
  r.node = test::node("pw", "Conv", {"x", "w"}, {"y"});
  r.descs = {{DType::kFloat32, x.shape(), nullptr}, {DType::kFloat32, w.shape(), &w}};
  if (b) {
    r.node.inputs.push_back("b");
    r.descs.push_back({DType::kFloat32, b->shape(), b});
  }
  return r;
}

// Runs the kernel the planner asks for (input in `layout`, output plain) on x (logical NCHW).
Tensor run_pointwise(const Built& built, const Tensor& x, Layout layout) {
  KernelInit init{built.node, built.descs, 17, layout, Layout::kPlain};
  std::unique_ptr<Kernel> k = create_kernel(init);
  Tensor stored = x;
  if (layout == Layout::kNHWC) {
    stored = Tensor(DType::kFloat32, physical_shape(x.shape(), Layout::kNHWC));
    nchw_to_nhwc(x, stored);
  }
  Tensor y(DType::kFloat32, k->outputs.at(0).shape);
  k->run({&stored}, {&y});
  return y;
}

int64_t differing(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  int64_t n = 0;
  for (int64_t i = 0; i < a.numel() && a.shape() == b.shape(); ++i)
    n += std::memcmp(a.data<float>() + i, b.data<float>() + i, sizeof(float)) != 0;
  return n;
}

class SimdAndThreads {
 public:
  SimdAndThreads() : threads_(omp_get_max_threads()) {}
  ~SimdAndThreads() {
    omp_set_num_threads(threads_);
    set_simd_level(simd_supported());
  }

 private:
  int threads_;
};

// Every SIMD level, thread count and input layout gives the ordered sum bit for bit: sizes around
// the 6-channel register blocks, the 64-pixel tiles and the vector widths, one pixel, one input
// channel, two images, with and without a bias.
TEST(PointwiseConv, GivesTheOrderedSumBitForBitAtEveryLevelAndThreadCount) {
  SimdAndThreads restore;
  std::mt19937 rng(11);
  struct Size {
    int64_t n, c, o, h, w;
  };
  for (const Size s :
       {Size{1, 64, 64, 8, 8}, Size{2, 17, 13, 7, 9}, Size{1, 3, 1, 1, 1}, Size{1, 51, 51, 20, 20},
        Size{1, 16, 1, 4, 130}, Size{1, 130, 7, 3, 3}, Size{1, 5, 12, 1, 33}}) {
    const Tensor x = random({s.n, s.c, s.h, s.w}, rng), w = random({s.o, s.c, 1, 1}, rng),
                 b = random({s.o}, rng);
    for (const Tensor* bias : {&b, static_cast<const Tensor*>(nullptr)}) {
      const Tensor want = ordered_sum(x, w, bias);
      const Built built = pointwise_node(x, w, bias);
      std::vector<SimdLevel> levels = {SimdLevel::kScalar};
      if (simd_supported() >= SimdLevel::kAvx2) levels.push_back(SimdLevel::kAvx2);
      if (simd_supported() >= SimdLevel::kAvx512) levels.push_back(SimdLevel::kAvx512);
      for (SimdLevel level : levels)
        for (int threads : {1, 2, 3})
          for (Layout layout : {Layout::kPlain, Layout::kNHWC}) {
            set_simd_level(level);
            omp_set_num_threads(threads);
            SCOPED_TRACE(::testing::Message()
                         << shape_str(x.shape()) << " -> " << s.o << (bias ? " bias" : "")
                         << " level " << simd_level_name(level) << " threads " << threads
                         << (layout == Layout::kNHWC ? " NHWC in" : " plain in"));
            EXPECT_EQ(differing(run_pointwise(built, x, layout), want), 0);
          }
    }
  }
}

// An output fake-quant step (W8A16 simulate) applies to the ordered sum.
TEST(PointwiseConv, AppliesTheOutputFakeQuantStep) {
  std::mt19937 rng(5);
  const Tensor x = random({1, 20, 9, 11}, rng), w = random({9, 20, 1, 1}, rng),
               b = random({9}, rng);
  Built built = pointwise_node(x, w, &b);
  built.node.plan.out = FakeQuantParams{0.05f, -128.0f, 127.0f};
  Tensor want = ordered_sum(x, w, &b);
  for (int64_t i = 0; i < want.numel(); ++i)
    want.data<float>()[i] = fake_quant(want.data<float>()[i], built.node.plan.out);
  for (Layout layout : {Layout::kPlain, Layout::kNHWC})
    EXPECT_EQ(differing(run_pointwise(built, x, layout), want), 0);
}

// Only a float 1x1 Conv with stride 1, no padding, one group and no fused SiLU qualifies.
TEST(PointwiseConv, TakesOnlyUnpaddedUnstridedOneByOneConvs) {
  Tensor w1(DType::kFloat32, {8, 16, 1, 1}), w3(DType::kFloat32, {8, 16, 3, 3}),
      wg(DType::kFloat32, {8, 8, 1, 1});
  const ValueDesc x{DType::kFloat32, {1, 16, 5, 5}, nullptr};
  const Node conv = test::node("c", "Conv", {"x", "w"}, {"y"});
  EXPECT_TRUE(is_pointwise_conv(conv, {x, {DType::kFloat32, w1.shape(), &w1}}));
  EXPECT_FALSE(is_pointwise_conv(conv, {x, {DType::kFloat32, w3.shape(), &w3}}));
  EXPECT_FALSE(is_pointwise_conv(conv, {x, {DType::kFloat32, w1.shape(), nullptr}}));
  EXPECT_FALSE(is_pointwise_conv(
      conv, {{DType::kFloat32, x.shape, &w1}, {DType::kFloat32, w1.shape(), &w1}}));
  Node strided = conv, padded = conv, grouped = conv, silu = conv;
  strided.attrs["strides"] = test::ints_attr({2, 2});
  padded.attrs["pads"] = test::ints_attr({0, 1, 0, 1});
  grouped.attrs["group"] = test::int_attr(2);
  silu.plan.silu = true;
  for (const Node& n : {strided, padded, silu})
    EXPECT_FALSE(is_pointwise_conv(n, {x, {DType::kFloat32, w1.shape(), &w1}})) << n.name;
  EXPECT_FALSE(is_pointwise_conv(grouped, {x, {DType::kFloat32, wg.shape(), &wg}}));
  // Asked to write a 3x3 Conv plain, the kernel refuses naming the node.
  KernelInit init{conv, {x, {DType::kFloat32, w3.shape(), &w3}}, 17, Layout::kNHWC, Layout::kPlain};
  try {
    create_kernel(init);
    ADD_FAILURE() << "a 3x3 Conv was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'c'"), std::string::npos) << e.what();
  }
}

// Which pointwise Convs write plain: those read plain downstream (a Reshape, a Concat of two such
// Convs read by a Reshape, another such Conv, a Reshape or such a Concat behind QuantizeLinear and
// DequantizeLinear), not one a 3x3 Conv or an NHWC Concat reads, nor one whose way leads to a graph
// output (a cut model's last Conv computes what the full model's does) or to a SiLU (fused into
// the Conv where nothing watches it: oneDNN's kernel).
TEST(PointwiseConv, PlannerWritesPlainOnlyWhereTheReadersReadPlain) {
  Tensor w1(DType::kFloat32, {4, 4, 1, 1}), w3(DType::kFloat32, {4, 4, 3, 3});
  Tensor shape = Tensor::from_vector<int64_t>({3}, {1, 8, 16});
  ValueDescs d;
  const ValueDesc act{DType::kFloat32, {1, 4, 4, 4}, nullptr};
  for (const char* v : {"x",  "a", "b",  "c", "k",  "m",  "e", "f", "g",  "h", "hs",
                        "hm", "q", "qd", "t", "td", "tk", "u", "v", "ud", "vd"})
    d[v] = act;
  d["qq"] = d["tq"] = d["uq"] = d["vq"] = {DType::kUInt8, act.shape, nullptr};
  d["cat3"] = d["cat"];
  Tensor scale = Tensor::scalar<float>(0.1f);
  d["scale"] = {DType::kFloat32, scale.shape(), &scale};
  d["cat"] = {DType::kFloat32, {1, 8, 4, 4}, nullptr};
  d["cat2"] = d["cat"];
  d["r"] = {DType::kFloat32, {1, 8, 16}, nullptr};
  d["r2"] = d["r"];
  d["r3"] = d["r4"] = d["r5"] = d["r6"] = d["r"];
  d["w1"] = {DType::kFloat32, w1.shape(), &w1};
  d["w3"] = {DType::kFloat32, w3.shape(), &w3};
  d["shape"] = {DType::kInt64, shape.shape(), &shape};
  auto attrs = [](Node n) {
    n.attrs["pads"] = test::ints_attr({1, 1, 1, 1});
    return n;
  };
  const std::vector<Node> nodes = {
      test::node("pa", "Conv", {"x", "w1"}, {"a"}),  // -> cat -> Reshape: plain
      test::node("pb", "Conv", {"x", "w1"}, {"b"}),  // -> cat: plain
      test::node("cat", "Concat", {"a", "b"}, {"cat"}),
      test::node("r", "Reshape", {"cat", "shape"}, {"r"}),
      test::node("pc", "Conv", {"x", "w1"}, {"c"}),  // -> 3x3 Conv: NHWC
      attrs(test::node("k", "Conv", {"c", "w3"}, {"k"})),
      test::node("pm", "Conv", {"x", "w1"}, {"m"}),  // -> cat2 with k (NHWC): NHWC
      test::node("cat2", "Concat", {"m", "k"}, {"cat2"}),
      test::node("r2", "Reshape", {"cat2", "shape"}, {"r2"}),
      test::node("pe", "Conv", {"x", "w1"}, {"e"}),  // -> pf, itself plain: plain
      test::node("pf", "Conv", {"e", "w1"}, {"f"}),  // -> Reshape: plain
      test::node("r3", "Reshape", {"f", "shape"}, {"r3"}),
      test::node("pg", "Conv", {"x", "w1"}, {"g"}),  // a graph output: as in the full model
      test::node("ph", "Conv", {"x", "w1"}, {"h"}),  // -> a SiLU (fused or not): oneDNN's
      test::node("hs", "Sigmoid", {"h"}, {"hs"}),
      test::node("hm", "Mul", {"h", "hs"}, {"hm"}),
      test::node("r4", "Reshape", {"hm", "shape"}, {"r4"}),
      test::node("pq", "Conv", {"x", "w1"}, {"q"}),  // -> Q -> DQ -> Reshape: plain
      test::node("qq", "QuantizeLinear", {"q", "scale"}, {"qq"}),
      test::node("qd", "DequantizeLinear", {"qq", "scale"}, {"qd"}),
      test::node("r5", "Reshape", {"qd", "shape"}, {"r5"}),
      test::node("pt", "Conv", {"x", "w1"}, {"t"}),  // -> Q -> DQ -> 3x3 Conv: NHWC
      test::node("tq", "QuantizeLinear", {"t", "scale"}, {"tq"}),
      test::node("td", "DequantizeLinear", {"tq", "scale"}, {"td"}),
      attrs(test::node("tk", "Conv", {"td", "w3"}, {"tk"})),
      test::node("pu", "Conv", {"x", "w1"}, {"u"}),  // both -> Q -> DQ -> cat3 -> Reshape: plain
      test::node("pv", "Conv", {"x", "w1"}, {"v"}),
      test::node("uq", "QuantizeLinear", {"u", "scale"}, {"uq"}),
      test::node("ud", "DequantizeLinear", {"uq", "scale"}, {"ud"}),
      test::node("vq", "QuantizeLinear", {"v", "scale"}, {"vq"}),
      test::node("vd", "DequantizeLinear", {"vq", "scale"}, {"vd"}),
      test::node("cat3", "Concat", {"ud", "vd"}, {"cat3"}),
      test::node("r6", "Reshape", {"cat3", "shape"}, {"r6"}),
  };
  EXPECT_EQ(plain_pointwise_outputs(nodes, d, {"g", "r"}),
            (std::set<std::string>{"a", "b", "e", "f", "q", "u", "v"}));
}

// Each value is looked at once per pass: 40 Adds of a value to itself (two ways to each next one,
// 2^40 ways to the end) take no time to plan.
TEST(PointwiseConv, PlannerLooksAtEachValueOnce) {
  Tensor w1(DType::kFloat32, {4, 4, 1, 1});
  Tensor shape = Tensor::from_vector<int64_t>({3}, {1, 4, 16});
  const ValueDesc act{DType::kFloat32, {1, 4, 4, 4}, nullptr};
  ValueDescs d{{"x", act},
               {"w1", {DType::kFloat32, w1.shape(), &w1}},
               {"shape", {DType::kInt64, shape.shape(), &shape}},
               {"r", {DType::kFloat32, {1, 4, 16}, nullptr}}};
  std::vector<Node> nodes = {test::node("p", "Conv", {"x", "w1"}, {"a0"})};
  d["a0"] = act;
  for (int i = 0; i < 40; ++i) {
    const std::string a = "a" + std::to_string(i), b = "a" + std::to_string(i + 1);
    nodes.push_back(test::node("add" + std::to_string(i), "Add", {a, a}, {b}));
    d[b] = act;
  }
  nodes.push_back(test::node("r", "Reshape", {"a40", "shape"}, {"r"}));
  EXPECT_EQ(plain_pointwise_outputs(nodes, d, {"r"}), (std::set<std::string>{"a0"}));
}

// A model whose head is pointwise Convs feeding a Concat and a Reshape runs with no layout
// conversion between them, and gives what the NHWC oneDNN path gives (within float rounding: the
// sums are in another order) at any thread count, bit for bit across thread counts.
TEST(PointwiseConv, HeadRunsWithoutConversionsAndMatchesTheNhwcPath) {
  Graph g;
  std::mt19937 rng(3);
  g.inputs = {{"x", DType::kFloat32, {1, 8, 12, 10}}};
  g.outputs = {{"y", DType::kFloat32, {1, 13, 120}}};
  g.initializers["w3"] = random({16, 8, 3, 3}, rng);
  g.initializers["wa"] = random({12, 16, 1, 1}, rng);
  g.initializers["ba"] = random({12}, rng);
  g.initializers["wb"] = random({1, 16, 1, 1}, rng);
  g.initializers["shape"] = Tensor::from_vector<int64_t>({3}, {1, 13, 120});
  Node k = test::node("k", "Conv", {"x", "w3"}, {"k"});
  k.attrs["pads"] = test::ints_attr({1, 1, 1, 1});
  g.nodes = {k, test::node("pa", "Conv", {"k", "wa", "ba"}, {"a"}),
             test::node("pb", "Conv", {"k", "wb"}, {"b"}),
             test::node("cat", "Concat", {"a", "b"}, {"cat"}),
             test::node("r", "Reshape", {"cat", "shape"}, {"y"})};
  g.nodes[3].attrs["axis"] = test::int_attr(1);
  const Tensor x = random({1, 8, 12, 10}, rng);

  ExecutorOptions opt;
  opt.profile = true;
  opt.threads = 1;
  Executor one(g, opt);
  const Tensor y1 = one.run({{"x", x}}).at("y");
  for (const StepTime& s : one.profile())
    EXPECT_EQ(s.what.find("layout conversion of 'a'"), std::string::npos) << s.what;
  int conversions = 0;
  for (const StepTime& s : one.profile()) conversions += s.what.rfind("layout conversion", 0) == 0;
  EXPECT_EQ(conversions, 1);  // the input's, to NHWC for the 3x3 Conv
  opt.threads = 2;
  EXPECT_EQ(differing(Executor(g, opt).run({{"x", x}}).at("y"), y1), 0);

  // The reference: the 3x3 Conv's output through the plain ordered sums.
  Graph head_only = g;
  head_only.outputs = {{"k", DType::kFloat32, {1, 16, 12, 10}}};
  const Tensor kx = Executor(head_only, opt).run({{"x", x}}).at("k");
  const Tensor a = ordered_sum(kx, g.initializers["wa"], &g.initializers["ba"]);
  const Tensor b = ordered_sum(kx, g.initializers["wb"], nullptr);
  ASSERT_EQ(y1.numel(), a.numel() + b.numel());
  EXPECT_EQ(std::memcmp(y1.data<float>(), a.data<float>(), a.numel() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(y1.data<float>() + a.numel(), b.data<float>(), b.numel() * sizeof(float)),
            0);
}

}  // namespace
}  // namespace edgeq
