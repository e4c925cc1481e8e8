// The op traits table (ir/op_traits.h): one row for every op the executor has a kernel for, and
// the facts the planner, the quantizer, the calibrator and the doctor read from it.
#include "ir/op_traits.h"

#include <gtest/gtest.h>

#include <set>

#include "graph_builders.h"
#include "runtime/kernel.h"

namespace edgeq {

TEST(OpTraits, EveryRegisteredKernelHasARow) {
  std::set<std::string> rows;
  for (const auto& [domain, op] : ops_with_traits())
    rows.insert(domain.empty() ? op : domain + "." + op);
  std::vector<std::string> missing;
  for (const std::string& op : registered_ops())
    if (!rows.count(op)) missing.push_back(op);
  EXPECT_TRUE(missing.empty()) << "no traits row for " << ::testing::PrintToString(missing);
  EXPECT_GT(registered_ops().size(), 40u);
}

TEST(OpTraits, FactsTheModulesRelyOn) {
  // Views alias, Transpose keeps values, Slice and nearest Resize move them; bilinear does not.
  EXPECT_TRUE(op_traits("", "Reshape").view);
  EXPECT_TRUE(op_traits("", "Transpose").same_values);
  EXPECT_FALSE(op_traits("", "Transpose").view);
  EXPECT_TRUE(op_traits("", "Slice").moves_values);
  Node nearest = test::node("r", "Resize", {"x", "", "s"}, {"y"});
  EXPECT_TRUE(moves_values(nearest));
  Attribute linear;
  linear.kind = Attribute::Kind::kString;
  linear.s = "linear";
  nearest.attrs["mode"] = linear;
  EXPECT_FALSE(moves_values(nearest));
  // Data inputs: Conv's weights and Resize's scales are parameters; Where's condition too.
  EXPECT_EQ(data_input_indices(test::node("c", "Conv", {"x", "w", "b"}, {"y"})),
            (std::vector<size_t>{0}));
  EXPECT_EQ(data_input_indices(test::node("w", "Where", {"c", "a", "b"}, {"y"})),
            (std::vector<size_t>{1, 2}));
  EXPECT_EQ(data_input_indices(test::node("a", "Add", {"a", "b"}, {"y"})),
            (std::vector<size_t>{0, 1}));
  // ORT's quantizer: Conv quantized, MaxPool shares its input's encoding, Sub is left float.
  EXPECT_TRUE(op_traits("", "Conv").ort_quantizes && op_traits("", "Conv").compute);
  EXPECT_TRUE(op_traits("", "MaxPool").ort_shares_encoding);
  EXPECT_FALSE(op_traits("", "Sub").ort_quantizes);
  EXPECT_TRUE(op_traits("edgeq", "FakeQuant").elementwise);
  EXPECT_TRUE(is_move_only("Split") && !is_move_only("Concat"));
  // The ops whose lists used to be repeated: binary arithmetic (int8's QBinary, the carriers of a
  // constant's error) and the kernels a Q -> DQ pair folds into.
  std::set<std::string> binary, fuses;
  for (const auto& [domain, op] : ops_with_traits()) {
    if (op_traits(domain, op).binary_arithmetic) binary.insert(domain + ":" + op);
    if (op_traits(domain, op).fuses_fake_quant) fuses.insert(domain + ":" + op);
  }
  EXPECT_EQ(binary, (std::set<std::string>{":Add", ":Div", ":Mul", ":Sub"}));
  EXPECT_EQ(fuses, (std::set<std::string>{":Add", ":Concat", ":Conv", ":Div", ":Mul", ":Sigmoid",
                                          ":Sub"}));
  // An op without a row gets the conservative defaults.
  EXPECT_FALSE(op_traits("", "NoSuchOp").moves_values);
}

}  // namespace edgeq
