#include <gtest/gtest.h>

#include "ir/graph.h"

namespace edgeq {

TEST(Graph, TopoOrderRejectsUndefinedInput) {
  Graph g;
  Node n;
  n.name = "a";
  n.op_type = "Relu";
  n.inputs = {"missing"};
  n.outputs = {"y"};
  g.nodes.push_back(n);
  try {
    g.topo_order();
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos);
  }
}

}  // namespace edgeq
