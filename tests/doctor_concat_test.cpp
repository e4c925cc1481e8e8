// Concat spans on hand-made statistics: span ratio, levels left to the narrow input, and the
// tail a shared MSE encoding would cut.
#include <gtest/gtest.h>

#include "analysis/concat_spans.h"
#include "graph_builders.h"

namespace edgeq {
namespace {

Graph concat_graph() {
  Graph g;
  g.inputs = {{"a", DType::kFloat32, {1, 1000}}, {"b", DType::kFloat32, {1, 1000}}};
  g.outputs = {{"c", DType::kFloat32, {2, 1000}}};
  g.nodes.push_back(test::node("cat", "Concat", {"a", "b"}, {"c"}));
  return g;
}

void observe_uniform(Stats& s, const std::string& name, float lo, float hi, int n = 1000) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(lo + (hi - lo) * i / (n - 1));
  s.observe(name, Tensor::from_vector<float>({n}, v));
}

TEST(DoctorConcat, SpanRatioOfInputs) {
  Stats s;
  observe_uniform(s, "a", 0, 1);
  observe_uniform(s, "b", 0, 10);
  observe_uniform(s, "c", 0, 10);
  auto spans = concat_spans(concat_graph(), s, 8);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].node, "cat");
  ASSERT_EQ(spans[0].spans.size(), 2u);
  EXPECT_DOUBLE_EQ(spans[0].spans[0], 1.0);
  EXPECT_DOUBLE_EQ(spans[0].spans[1], 10.0);
  EXPECT_DOUBLE_EQ(spans[0].ratio, 10.0);

  auto shared = concat_findings(spans, true, 8);
  ASSERT_GE(shared.size(), 1u);
  EXPECT_EQ(shared[0].kind, "concat-span");
  EXPECT_EQ(shared[0].severity, Severity::kWarning);
  EXPECT_EQ(shared[0].node, "cat");
  // The narrow input keeps 1/10 of 255 levels.
  EXPECT_NEAR(shared[0].numbers.at("narrow_levels"), 25.5, 1e-9);
  auto apart = concat_findings(spans, false, 8);
  ASSERT_GE(apart.size(), 1u);
  EXPECT_EQ(apart[0].severity, Severity::kInfo);
}

TEST(DoctorConcat, SimilarSpansAreQuiet) {
  Stats s;
  observe_uniform(s, "a", 0, 4);
  observe_uniform(s, "b", -1, 5);
  auto spans = concat_spans(concat_graph(), s, 8);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_DOUBLE_EQ(spans[0].ratio, 1.5);
  EXPECT_TRUE(concat_findings(spans, true, 8).empty());
}

TEST(DoctorConcat, LongTailCutBySharedEncoding) {
  // a and b: 10^6 values each in [0, 1]; b also one value at 20. Keeping 20 costs 2e6 values x
  // (20/255)^2 / 12 = 1025 in rounding noise, clipping it to ~1 only 19^2 = 361: a shared 8-bit
  // MSE range (the optimum lies between, where the two costs balance) cuts most of b's span.
  Stats s;
  observe_uniform(s, "a", 0, 1, 1000000);
  std::vector<float> b;
  for (int i = 0; i < 1000000; ++i) b.push_back(i / 999999.0f);
  b.push_back(20.0f);
  s.observe("b", Tensor::from_vector<float>({static_cast<int64_t>(b.size())}, b));
  auto spans = concat_spans(concat_graph(), s, 8);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_LT(spans[0].shared_hi, 10.0);
  EXPECT_EQ(spans[0].cut_input, "b");
  EXPECT_GT(spans[0].cut_share, 0.5);
  EXPECT_GE(spans[0].cut_fraction, 1.0 / 1000001.0);
  bool tail = false;
  for (const Finding& f : concat_findings(spans, true, 8))
    tail |= f.kind == "concat-tail" && f.value == "b" && f.severity == Severity::kWarning;
  EXPECT_TRUE(tail);
}

TEST(DoctorConcat, ConcatWithoutStatsIsSkipped) {
  Stats s;
  observe_uniform(s, "a", 0, 1);
  EXPECT_TRUE(concat_spans(concat_graph(), s, 8).empty());
}

}  // namespace
}  // namespace edgeq
