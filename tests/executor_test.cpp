// Executor planning: hooks (logical and as-stored views), fusion guarded by hooks, arena plan.
#include "runtime/executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "graph_builders.h"
#include "runtime/memory_plan.h"

namespace edgeq {
namespace {

// x -> Conv(3x3, 4->6, pad 1) -> t -> Sigmoid -> s -> Mul(t, s) -> y -> Reshape -> out [1, 6*5*7]
Graph silu_graph() {
  Graph g;
  g.inputs.push_back({"x", DType::kFloat32, {1, 4, 5, 7}});
  g.outputs.push_back({"out", DType::kFloat32, {1, 210}});
  Tensor w(DType::kFloat32, {6, 4, 3, 3});
  std::mt19937 rng(3);
  std::normal_distribution<float> n(0.f, 0.3f);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = n(rng);
  g.initializers["w"] = w;
  g.initializers["shape"] = Tensor::from_vector<int64_t>({2}, {1, 210});
  Node conv{"conv", "Conv", "", {"x", "w"}, {"t"}, {}};
  Attribute pads;
  pads.kind = Attribute::Kind::kInts;
  pads.ints = {1, 1, 1, 1};
  conv.attrs["pads"] = pads;
  g.nodes.push_back(conv);
  g.nodes.push_back({"sig", "Sigmoid", "", {"t"}, {"s"}, {}});
  g.nodes.push_back({"mul", "Mul", "", {"t", "s"}, {"y"}, {}});
  g.nodes.push_back({"flat", "Reshape", "", {"y", "shape"}, {"out"}, {}});
  return g;
}

// Plain conv output t in NCHW, for checking what hooks see.
std::vector<float> reference_conv(const Graph& g, const Tensor& x) {
  const Tensor& w = g.initializers.at("w");
  std::vector<float> t(6 * 5 * 7, 0.f);
  for (int o = 0; o < 6; ++o)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 7; ++j) {
        double acc = 0;
        for (int c = 0; c < 4; ++c)
          for (int ki = 0; ki < 3; ++ki)
            for (int kj = 0; kj < 3; ++kj) {
              int yi = i + ki - 1, xj = j + kj - 1;
              if (yi < 0 || yi >= 5 || xj < 0 || xj >= 7) continue;
              acc += double(x.data<float>()[(c * 5 + yi) * 7 + xj]) *
                     w.data<float>()[((o * 4 + c) * 3 + ki) * 3 + kj];
            }
        t[(o * 5 + i) * 7 + j] = float(acc);
      }
  return t;
}

Tensor random_input() {
  Tensor x(DType::kFloat32, {1, 4, 5, 7});
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = u(rng);
  return x;
}

TEST(Executor, HookOnFusedValueSeesLogicalLayoutAndCorrectValues) {
  Graph g = silu_graph();
  Tensor x = random_input();
  std::vector<float> seen;
  Executor ex(g);
  ex.add_hook("t", [&](const std::string&, const Tensor& t) {
    EXPECT_EQ(t.shape(), (Shape{1, 6, 5, 7}));
    seen.assign(t.data<float>(), t.data<float>() + t.numel());
  });
  Tensor out = ex.run({{"x", x}}).at("out");
  std::vector<float> ref = reference_conv(g, x);
  ASSERT_EQ(seen.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_NEAR(seen[i], ref[i], 1e-4);
    float silu = ref[i] / (1.f + std::exp(-ref[i]));
    EXPECT_NEAR(out.data<float>()[i], silu, 1e-4);
  }
}

TEST(Executor, FusedAndUnfusedAgree) {
  Graph g = silu_graph();
  Tensor x = random_input();
  ExecutorOptions plain;
  plain.fuse = false;
  plain.channels_last = false;
  Tensor a = Executor(g).run({{"x", x}}).at("out");
  Tensor b = Executor(g, plain).run({{"x", x}}).at("out");
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-5);
}

// With the Conv output watched, the Conv keeps no SiLU post-op, but Sigmoid -> Mul still runs as
// one pass (a Sigmoid step marked silu and no Mul step) and gives the unfused values bit for bit.
TEST(Executor, WatchedConvOutputStillFusesSigmoidMul) {
  Graph g = silu_graph();
  Tensor x = random_input();
  ExecutorOptions prof;
  prof.profile = true;
  ExecutorOptions plain = prof;
  plain.fuse = false;
  Executor fused(g, prof), unfused(g, plain);
  for (Executor* ex : {&fused, &unfused})
    ex->add_hook("t", [](const std::string&, const Tensor&) {});
  Tensor a = fused.run({{"x", x}}).at("out");
  Tensor b = unfused.run({{"x", x}}).at("out");
  auto ops = [](const Executor& ex) {
    std::vector<std::string> out;
    for (const StepTime& s : ex.profile()) out.push_back(s.op);
    return out;
  };
  std::vector<std::string> f = ops(fused), u = ops(unfused);
  EXPECT_EQ(std::count(f.begin(), f.end(), "Mul"), 0);
  EXPECT_EQ(std::count(f.begin(), f.end(), "Sigmoid"), 1);
  EXPECT_EQ(std::count(u.begin(), u.end(), "Mul"), 1);
  ASSERT_EQ(a.numel(), b.numel());
  for (int64_t i = 0; i < a.numel(); ++i) ASSERT_EQ(a.data<float>()[i], b.data<float>()[i]) << i;
  // A watched Sigmoid output blocks the rewrite.
  Executor watched(g, prof);
  watched.add_hook("s", [](const std::string&, const Tensor&) {});
  watched.run({{"x", x}});
  std::vector<std::string> w = ops(watched);
  EXPECT_EQ(std::count(w.begin(), w.end(), "Mul"), 1);
}

// Counts what a stream observer is shown: every element once per run, in pieces from any thread.
class CountingStream : public StreamObserver {
 public:
  void begin(const Tensor& t) override {
    ++begins;
    n = t.numel();
    expected_sum = 0;
    for (int64_t i = 0; i < n; ++i) expected_sum += t.data<float>()[i];
    for (auto& s : sums) s = 0;
    for (auto& c : counts) c = 0;
  }
  void part(const float* v, int64_t k, int thread) override {
    ASSERT_LT(thread, 64);
    for (int64_t i = 0; i < k; ++i) sums[thread] += v[i];
    counts[thread] += k;
  }
  void end() override {
    ++ends;
    seen = 0;
    sum = 0;
    for (int t = 0; t < 64; ++t) {
      seen += counts[t];
      sum += sums[t];
    }
  }
  int begins = 0, ends = 0;
  int64_t n = 0, seen = 0;
  double expected_sum = 0, sum = 0;
  double sums[64] = {};
  int64_t counts[64] = {};
};

// A stream on the Conv output rides along the SiLU pass (no step of its own), sees every element
// once, and changes no output; the SiLU output (NHWC) rides along its conversion for the Reshape;
// the graph output, which nothing reads, is fed after its step.
TEST(Executor, StreamObserverSeesEveryElementOnceAndChangesNothing) {
  Graph g = silu_graph();
  Tensor x = random_input();
  ExecutorOptions plain;
  plain.fuse = false;
  Tensor ref = Executor(g, plain).run({{"x", x}}).at("out");
  CountingStream t_stream, y_stream, out_stream;
  ExecutorOptions prof;
  prof.profile = true;
  Executor ex(g, prof);
  ex.add_stream_observer("t", &t_stream);
  ex.add_stream_observer("y", &y_stream);
  ex.add_stream_observer("out", &out_stream);
  for (int run = 1; run <= 2; ++run) {
    Tensor out = ex.run({{"x", x}}).at("out");
    for (int64_t i = 0; i < out.numel(); ++i)
      ASSERT_EQ(out.data<float>()[i], ref.data<float>()[i]) << i;
    for (CountingStream* s : {&t_stream, &y_stream, &out_stream}) {
      EXPECT_EQ(s->begins, run);
      EXPECT_EQ(s->ends, run);
      EXPECT_EQ(s->n, 6 * 5 * 7);
      EXPECT_EQ(s->seen, s->n);
      EXPECT_NEAR(s->sum, s->expected_sum, 1e-3);
    }
  }
  std::vector<std::string> ops;
  for (const StepTime& st : ex.profile()) ops.push_back(st.op);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Mul"), 0);  // still one SiLU pass
  EXPECT_EQ(ex.stream_readers(), (std::map<std::string, std::string>{
                                     {"t", "Sigmoid"}, {"y", "LayoutConversion"}, {"out", ""}}));
}

// Values a Concat reads are streamed while it copies them (each input once, even in NHWC where
// its rows interleave in the output); a value the Concat reads twice is still seen once.
TEST(Executor, StreamObserverOnConcatInputsSeesEveryElementOnce) {
  Graph g;
  g.inputs = {{"a", DType::kFloat32, {1, 4, 9, 11}}, {"b", DType::kFloat32, {1, 3, 9, 11}}};
  g.outputs = {{"c", DType::kFloat32, {1, 7, 9, 11}}, {"d", DType::kFloat32, {1, 6, 9, 11}}};
  Tensor w(DType::kFloat32, {4, 4, 3, 3});  // 3x3: NHWC even on a plain input
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = nd(rng);
  g.initializers["w"] = w;
  Node conv = test::node("conv", "Conv", {"a", "w"}, {"ra"});
  conv.attrs["pads"] = test::ints_attr({1, 1, 1, 1});
  g.nodes.push_back(conv);
  g.nodes.push_back(test::node("neg", "Neg", {"b"}, {"nb"}));
  Node cat = test::node("cat", "Concat", {"ra", "nb"}, {"c"});
  cat.attrs["axis"] = test::int_attr(1);
  g.nodes.push_back(cat);
  g.nodes.push_back(test::node("abs", "Abs", {"b"}, {"ab"}));
  Node twice = test::node("twice", "Concat", {"ab", "ab"}, {"d"});
  twice.attrs["axis"] = test::int_attr(1);
  g.nodes.push_back(twice);
  Tensor a(DType::kFloat32, {1, 4, 9, 11}), b(DType::kFloat32, {1, 3, 9, 11});
  for (Tensor* t : {&a, &b})
    for (int64_t i = 0; i < t->numel(); ++i) t->data<float>()[i] = nd(rng);
  auto ref = Executor(g).run({{"a", a}, {"b", b}});
  CountingStream ra_stream, nb_stream, ab_stream;
  Executor ex(g);
  ex.add_stream_observer("ra", &ra_stream);
  ex.add_stream_observer("nb", &nb_stream);
  ex.add_stream_observer("ab", &ab_stream);
  for (int run = 1; run <= 2; ++run) {
    auto out = ex.run({{"a", a}, {"b", b}});
    for (const char* v : {"c", "d"})
      for (int64_t i = 0; i < out.at(v).numel(); ++i)
        ASSERT_EQ(out.at(v).data<float>()[i], ref.at(v).data<float>()[i]) << v << " " << i;
    for (CountingStream* s : {&ra_stream, &nb_stream, &ab_stream}) {
      EXPECT_EQ(s->begins, run);
      EXPECT_EQ(s->ends, run);
      EXPECT_EQ(s->seen, s->n);
      EXPECT_NEAR(s->sum, s->expected_sum, 1e-3);
    }
    EXPECT_EQ(ra_stream.n, 4 * 9 * 11);
    EXPECT_EQ(nb_stream.n, 3 * 9 * 11);
    EXPECT_EQ(ab_stream.n, 3 * 9 * 11);
  }
  // nb is plain and the Concat runs NHWC: the conversion to NHWC passes it on.
  EXPECT_EQ(ex.stream_readers(),
            (std::map<std::string, std::string>{
                {"ra", "Concat"}, {"nb", "LayoutConversion"}, {"ab", "Concat"}}));
}

// Binary elementwise kernels pass on their full-size float operands as they read them: both
// operands of one node, the broadcast and scalar paths, and a value read through a Reshape (an
// alias: the same bytes in the same order). Outputs stay as they are.
TEST(Executor, StreamObserverOnBinaryOperandsSeesEveryElementOnce) {
  const Shape shape = {1, 2, 3, 16384};  // large enough for the parallel loops
  Graph g;
  g.inputs = {{"x", DType::kFloat32, shape}};
  g.outputs = {{"m", DType::kFloat32, shape},
               {"k", DType::kFloat32, {1, 98304}},
               {"p", DType::kFloat32, shape}};
  g.initializers["c"] = Tensor::from_vector<float>({1, 1, 3, 1}, {0.5f, -2.f, 3.f});
  g.initializers["two"] = Tensor::from_vector<float>({}, {2.f});
  g.initializers["one"] = Tensor::from_vector<float>({1}, {1.f});
  g.initializers["flat"] = Tensor::from_vector<int64_t>({2}, {1, 98304});
  g.nodes.push_back(test::node("neg", "Neg", {"x"}, {"u"}));
  g.nodes.push_back(test::node("abs", "Abs", {"x"}, {"v"}));
  g.nodes.push_back(test::node("add", "Add", {"u", "v"}, {"s"}));  // both operands
  g.nodes.push_back(test::node("mul", "Mul", {"c", "s"}, {"m"}));  // broadcast, input 1
  g.nodes.push_back(test::node("exp", "Exp", {"x"}, {"w"}));
  g.nodes.push_back(test::node("flat", "Reshape", {"w", "flat"}, {"r"}));
  g.nodes.push_back(test::node("scale", "Mul", {"r", "two"}, {"k"}));  // scalar, via alias
  g.nodes.push_back(test::node("relu", "Relu", {"x"}, {"n"}));
  g.nodes.push_back(test::node("sub", "Sub", {"one", "n"}, {"p"}));  // scalar first
  Tensor x(DType::kFloat32, shape);
  std::mt19937 rng(5);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = nd(rng);
  auto ref = Executor(g).run({{"x", x}});
  std::map<std::string, CountingStream> streams;
  Executor ex(g);
  for (const char* v : {"u", "v", "s", "w", "n"}) ex.add_stream_observer(v, &streams[v]);
  for (int run = 1; run <= 2; ++run) {
    auto out = ex.run({{"x", x}});
    for (const char* v : {"m", "k", "p"})
      for (int64_t i = 0; i < out.at(v).numel(); ++i)
        ASSERT_EQ(out.at(v).data<float>()[i], ref.at(v).data<float>()[i]) << v << " " << i;
    for (auto& [v, s] : streams) {
      EXPECT_EQ(s.begins, run) << v;
      EXPECT_EQ(s.ends, run) << v;
      EXPECT_EQ(s.n, x.numel()) << v;
      EXPECT_EQ(s.seen, s.n) << v;
      EXPECT_NEAR(s.sum, s.expected_sum, 1e-6 * x.numel()) << v;
    }
  }
  EXPECT_EQ(ex.stream_readers(),
            (std::map<std::string, std::string>{
                {"u", "Add"}, {"v", "Add"}, {"s", "Mul"}, {"w", "Mul"}, {"n", "Sub"}}));
}

TEST(Executor, WatchAllSeesEveryActivationOnceAndStoredViewHasSameValues) {
  Graph g = silu_graph();
  Tensor x = random_input();
  std::map<std::string, std::vector<float>> logical, stored;
  Executor ex(g);
  ex.add_hook("*", [&](const std::string& v, const Tensor& t) {
    EXPECT_FALSE(logical.count(v)) << v << " seen twice";
    logical[v].assign(t.data<float>(), t.data<float>() + t.numel());
  });
  ex.add_hook(
      "*",
      [&](const std::string& v, const Tensor& t) {
        stored[v].assign(t.data<float>(), t.data<float>() + t.numel());
      },
      HookView::kAsStored);
  ex.run({{"x", x}});
  for (const char* v : {"x", "t", "s", "y", "out"}) {
    ASSERT_TRUE(logical.count(v)) << v;
    auto a = logical[v], b = stored[v];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << v;
  }
  EXPECT_EQ(logical.size(), 5u);
}

TEST(MemoryPlan, OverlappingLifetimesNeverShareBytes) {
  std::mt19937 rng(5);
  std::vector<BufferLife> bufs;
  for (int i = 0; i < 200; ++i) {
    int first = rng() % 100;
    bufs.push_back({size_t(1 + rng() % 5000), first, first + int(rng() % 20)});
  }
  size_t total = 0;
  auto off = plan_arena(bufs, &total);
  size_t sum = 0;
  for (size_t i = 0; i < bufs.size(); ++i) {
    sum += bufs[i].bytes;
    EXPECT_EQ(off[i] % 64, 0u);
    EXPECT_LE(off[i] + bufs[i].bytes, total);
    for (size_t j = i + 1; j < bufs.size(); ++j) {
      bool live_together = bufs[i].first <= bufs[j].last && bufs[j].first <= bufs[i].last;
      bool overlap = off[i] < off[j] + bufs[j].bytes && off[j] < off[i] + bufs[i].bytes;
      EXPECT_FALSE(live_together && overlap) << i << " and " << j;
    }
  }
  EXPECT_LT(total, sum);  // reuse happened
}

TEST(Executor, RejectsWrongInputWithOneClearMessage) {
  Executor ex(silu_graph());
  try {
    ex.run({{"x", Tensor(DType::kFloat32, {1, 4, 5, 8})}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[1,4,5,7]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace edgeq
