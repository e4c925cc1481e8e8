// Sensitivity on a tiny graph against a hand fake-quant reference, the mixed set built from the
// ranking, and the mixed-set file forms.
#include <gtest/gtest.h>

#include <cmath>

#include "core/encoding.h"
#include "core/error.h"
#include "core/file_io.h"
#include "edgeq/mixed_set.h"
#include "graph_builders.h"
#include "quant/sensitivity.h"
#include "test_util.h"

namespace edgeq {
namespace {

// x [1,64] -> Mul(x, x) -> m [1,64] (output).
Graph square() {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 64}}};
  g.outputs = {{"m", DType::kFloat32, {1, 64}}};
  g.nodes.push_back(test::node("sq", "Mul", {"x", "x"}, {"m"}));
  return g;
}

std::vector<float> data() {
  std::vector<float> v;
  for (int i = 0; i < 64; ++i) v.push_back(-1.0f + 3.0f * i / 63.0f + 0.013f * (i % 7));
  return v;
}

double rel_l2(const std::vector<double>& test, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    num += (test[i] - ref[i]) * (test[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

TEST(DoctorSensitivity, RanksAgainstHandFakeQuant) {
  std::vector<float> x = data();
  Tensor xt = Tensor::from_vector<float>({1, 64}, x);
  Stats s;
  s.observe("x", xt);
  std::vector<float> m(64);
  for (int i = 0; i < 64; ++i) m[i] = x[i] * x[i];
  s.observe("m", Tensor::from_vector<float>({1, 64}, m));

  // Hand reference: 8-bit minmax encodings of x and of m, one at a time.
  float xmin = *std::min_element(x.begin(), x.end()), xmax = *std::max_element(x.begin(), x.end());
  float mmax = *std::max_element(m.begin(), m.end());
  Encoding ex = encoding_from_range(xmin, xmax, 8, false);
  Encoding em = encoding_from_range(0.0, mmax, 8, false);
  std::vector<double> ref, qx, qm;
  for (int i = 0; i < 64; ++i) {
    ref.push_back(m[i]);
    float f = ex.fake_quant(x[i]);
    qx.push_back(f * f);
    qm.push_back(em.fake_quant(m[i]));
  }
  double want_x = rel_l2(qx, ref), want_m = rel_l2(qm, ref);

  auto ranking = rank_sensitivity(square(), s, {"x", "m"}, {{{"x", xt}}}, {});
  ASSERT_EQ(ranking.size(), 2u);
  std::map<std::string, double> got;
  for (const auto& r : ranking) got[r.value] = r.rel_l2;
  for (const auto& r : ranking) EXPECT_EQ(r.loss, r.rel_l2);  // not a YOLO output
  EXPECT_NEAR(got.at("x"), want_x, 1e-6 + 1e-4 * want_x);
  EXPECT_NEAR(got.at("m"), want_m, 1e-6 + 1e-4 * want_m);
  EXPECT_GE(ranking[0].rel_l2, ranking[1].rel_l2);
  EXPECT_EQ(ranking[0].value, want_x > want_m ? "x" : "m");

  MixedSet mixed = mixed_set_from_ranking(ranking, 50);
  EXPECT_EQ(mixed.a16, std::vector<std::string>{ranking[0].value});
  EXPECT_EQ(mixed.ranking.size(), 2u);
  EXPECT_EQ(mixed_set_from_ranking(ranking, 1).a16.size(), 1u);  // at least one
  EXPECT_EQ(mixed_set_from_ranking(ranking, 100).a16.size(), 2u);
}

TEST(DoctorSensitivity, MixedSetFileForms) {
  std::string dir = test::temp_dir("mixed");
  MixedSet m{{"a", "/model.23/Concat_5_output_0"}, {{"a", 0.5}, {"b", 0.1}}};
  save_mixed_set(m, dir + "/mixed.json");
  EXPECT_EQ(load_mixed_set(dir + "/mixed.json"),
            (std::set<std::string>{"a", "/model.23/Concat_5_output_0"}));
  EXPECT_EQ(parse_mixed_set("[\"p\", \"q\"]", "list"), (std::set<std::string>{"p", "q"}));
  EXPECT_EQ(parse_mixed_set("# keep at 16 bit\np\n  q  # the decode\n\n", "text"),
            (std::set<std::string>{"p", "q"}));
  try {
    parse_mixed_set("{\"a8\": []}", "m.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("m.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("a16"), std::string::npos);
  }
  EXPECT_THROW(parse_mixed_set("{\"a16\": [3]}", "m.json"), Error);
}

}  // namespace
}  // namespace edgeq
