#include "ir/graph.h"

#include <gtest/gtest.h>

#include "graph_builders.h"

namespace edgeq {

TEST(Graph, TopoOrderRejectsUndefinedInput) {
  Graph g;
  g.nodes.push_back(test::node("a", "Relu", {"missing"}, {"y"}));
  try {
    g.topo_order();
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);
  }
}

}  // namespace edgeq
