// Float tails and placement: a QDQ graph whose decode tail stays float is flagged for qnn-htp
// and rknn (and only noted for cpu); the same graph fully inside Q/DQ gives no warning or error.
#include <gtest/gtest.h>

#include "analysis/doctor.h"
#include "analysis/float_tails.h"
#include "core/error.h"
#include "graph_builders.h"

namespace edgeq {
namespace {

using test::node;

// x [1,2,4,4] -> Conv 1x1 -> c -> Sigmoid -> s -> Reshape [1,2,16] -> r
//   -> Mul(r, 2) -> d -> Add(d, r) -> e -> Concat(e, r) -> y
Graph model() {
  Graph g = test::conv_sigmoid_reshape();
  g.nodes.push_back(node("mul", "Mul", {"r", "two"}, {"d"}));
  g.nodes.push_back(node("add", "Add", {"d", "r"}, {"e"}));
  Node cat = node("cat", "Concat", {"e", "r"}, {"y"});
  cat.attrs["axis"] = test::int_attr(1);
  g.nodes.push_back(cat);
  return g;
}

Graph quantized(const std::set<std::string>& exclude) {
  Graph g = model();
  Stats s = test::calibrate(g, "x", test::uniform_inputs(4, 3, 0, 1));
  QuantConfig c = config_for_scheme(Scheme::kW8A8);
  c.placement = Placement::kQnn;
  c.exclude_nodes = exclude;
  return test::export_qdq_model(g, s, c).graph;
}

int count(const std::vector<Finding>& f, const std::string& kind, Severity at_least) {
  int n = 0;
  for (const Finding& x : f) n += x.kind == kind && x.severity >= at_least;
  return n;
}

TEST(DoctorFloatTail, DecodeTailOutsideQdqIsFlaggedForNpus) {
  Graph q = quantized({"mul", "add", "cat"});
  std::vector<int> fl = float_nodes(q);
  std::set<std::string> names;
  for (int i : fl) names.insert(q.nodes[i].name);
  EXPECT_EQ(names, (std::set<std::string>{"mul", "add", "cat"}));
  for (const char* t : {"qnn-htp", "rknn"}) {
    auto f = float_tail_findings(q, load_target(t));
    EXPECT_EQ(count(f, "float-tail", Severity::kError), 1) << t;
    EXPECT_EQ(count(f, "float-op", Severity::kWarning), 3) << t;
    EXPECT_EQ(count(f, "float-io", Severity::kWarning), 1) << t;  // output y written by Concat
    for (const Finding& x : f)
      if (x.kind == "float-tail") {
        EXPECT_EQ(x.numbers.at("nodes"), 3) << t;
        // The error says what to change, on its one line.
        EXPECT_NE(x.message.find("; to change: "), std::string::npos) << x.message;
        EXPECT_NE(x.message.find("cut the decode off the graph"), std::string::npos) << x.message;
        EXPECT_EQ(x.message.find('\n'), std::string::npos) << x.message;
      }
  }
  auto cpu = float_tail_findings(q, load_target("cpu"));
  EXPECT_EQ(count(cpu, "float-tail", Severity::kInfo), 1);
  EXPECT_EQ(count(cpu, "float-tail", Severity::kWarning), 0);
  for (const Finding& x : cpu)  // nothing to change where float ops are allowed
    EXPECT_EQ(x.message.find("to change"), std::string::npos) << x.message;
}

TEST(DoctorFloatTail, CleanQdqModelHasNothingSpurious) {
  Graph q = quantized({});
  EXPECT_TRUE(float_nodes(q).empty());
  for (const char* t : {"qnn-htp", "rknn", "cpu"}) {
    DoctorResult r = run_doctor(q, nullptr, nullptr, load_target(t));
    EXPECT_TRUE(r.qdq);
    EXPECT_GT(r.activation_encodings, 0u);
    for (const Finding& f : r.findings)
      EXPECT_EQ(f.severity, Severity::kInfo) << t << ": " << f.kind << " " << f.message;
  }
}

TEST(DoctorFloatTail, OpsTheTargetCannotRunQuantized) {
  Graph g = model();
  g.nodes.push_back(node("nms", "NonMaxSuppression", {"y"}, {"keep"}));
  auto f = op_support_findings(g, load_target("qnn-htp"));
  bool nms = false;
  for (const Finding& x : f)
    if (x.node == "nms") {
      nms = true;
      EXPECT_EQ(x.severity, Severity::kWarning);
      EXPECT_NE(x.message.find("would run on CPU"), std::string::npos) << x.message;
    }
  EXPECT_TRUE(nms);
  for (const Finding& x : f) EXPECT_EQ(x.node, "nms") << x.message;  // Conv, Sigmoid, ... run
  auto cpu = op_support_findings(g, load_target("cpu"));
  for (const Finding& x : cpu) EXPECT_EQ(x.severity, Severity::kInfo);
}

TEST(DoctorFloatTail, UnknownTargetIsAClearError) {
  try {
    load_target("hexagon");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown target 'hexagon'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("qnn-htp"), std::string::npos);
  }
}

}  // namespace
}  // namespace edgeq
