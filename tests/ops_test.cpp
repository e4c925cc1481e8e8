// Operator kernels against plain references: ONE table of cases, ONE loop (a value-
// parameterized test). Each case builds the kernel through create_kernel, feeds random
// inputs (fixed seed), runs it, and compares every output with tests/reference_ops.cpp by max
// abs error and normalized MSE. Rows marked kNHWC run the kernel on NHWC tensors (inputs
// transposed in, outputs transposed back). A row whose op has no kernel fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "reference_ops.h"
#include "runtime/kernel.h"

namespace edgeq {
namespace {

// One input of a case: random data of a shape and type, optionally handed to the kernel as a
// plan-time constant; or fixed values (always constant); or omitted.
struct In {
  Shape shape;
  DType dtype = DType::kFloat32;
  double lo = -2, hi = 2;
  bool constant = false;
  Tensor value;  // fixed values when value.raw() != nullptr
  bool omitted = false;
};

In f(Shape s, double lo = -2, double hi = 2) {
  In i;
  i.shape = std::move(s);
  i.lo = lo;
  i.hi = hi;
  return i;
}
In cf(Shape s, double lo = -1, double hi = 1) {
  In i = f(std::move(s), lo, hi);
  i.constant = true;
  return i;
}
In ints(Shape s, DType dt, double lo, double hi) {
  In i;
  i.shape = std::move(s);
  i.dtype = dt;
  i.lo = lo;
  i.hi = hi;
  return i;
}
In fixed(Tensor t) {
  In i;
  i.shape = t.shape();
  i.dtype = t.dtype();
  i.constant = true;
  i.value = std::move(t);
  return i;
}
In i64(std::vector<int64_t> v) {
  return fixed(Tensor::from_vector<int64_t>({static_cast<int64_t>(v.size())}, v));
}
In f32(std::vector<float> v) {
  return fixed(Tensor::from_vector<float>({static_cast<int64_t>(v.size())}, v));
}
In none() {
  In i;
  i.omitted = true;
  return i;
}

std::pair<std::string, Attribute> attr_i(const std::string& k, int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  return {k, a};
}
std::pair<std::string, Attribute> attr_f(const std::string& k, float v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloat;
  a.f = v;
  return {k, a};
}
std::pair<std::string, Attribute> attr_s(const std::string& k, const std::string& v) {
  Attribute a;
  a.kind = Attribute::Kind::kString;
  a.s = v;
  return {k, a};
}
std::pair<std::string, Attribute> attr_is(const std::string& k, std::vector<int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  return {k, a};
}
std::pair<std::string, Attribute> attr_fs(const std::string& k, std::vector<float> v) {
  Attribute a;
  a.kind = Attribute::Kind::kFloats;
  a.floats = std::move(v);
  return {k, a};
}
std::pair<std::string, Attribute> attr_t(const std::string& k, Tensor t) {
  Attribute a;
  a.kind = Attribute::Kind::kTensor;
  a.t = std::move(t);
  return {k, a};
}

struct Case {
  std::string name;
  std::string op;
  std::vector<In> inputs;
  std::map<std::string, Attribute> attrs = {};
  int64_t opset = 17;
  Layout layout = Layout::kPlain;
  int outputs = 1;
  double atol = 1e-5;  // per element: |got - ref| <= atol + rtol * |ref|
  double rtol = 1e-5;
};

// gtest prints a failing parameter with this: the case name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

constexpr Layout kNHWC = Layout::kNHWC;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::vector<Case> table() {
  using A = std::map<std::string, Attribute>;
  auto pool = [](std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p) {
    return A{attr_is("kernel_shape", k), attr_is("strides", s), attr_is("pads", p)};
  };
  auto with = [](A a, std::pair<std::string, Attribute> extra) {
    a.insert(extra);
    return a;
  };
  auto resize_attrs = [](const std::string& mode, const std::string& coord,
                         const std::string& nearest) {
    A a{attr_s("mode", mode), attr_s("coordinate_transformation_mode", coord)};
    if (!nearest.empty()) a.insert(attr_s("nearest_mode", nearest));
    return a;
  };
  const In no_roi = none();
  return {
      // ---- elementwise unary
      {"Sigmoid_small",
       "Sigmoid",
       {f({1, 3, 7, 13}, -12, 12)},
       {},
       17,
       Layout::kPlain,
       1,
       1e-7,
       1e-6},
      {"Sigmoid_large_parallel",
       "Sigmoid",
       {f({1, 16, 80, 80}, -30, 30)},
       {},
       17,
       Layout::kPlain,
       1,
       1e-7,
       1e-6},
      {"Sigmoid_nhwc", "Sigmoid", {f({1, 5, 3, 7}, -8, 8)}, {}, 17, kNHWC, 1, 1e-7, 1e-6},
      {"Relu", "Relu", {f({2, 3, 5})}},
      {"Clip_inputs", "Clip", {f({2, 3, 5}, -3, 3), f32({-1.5f}), f32({0.75f})}, {}, 13},
      {"Clip_max_only", "Clip", {f({2, 7}, -3, 3), none(), f32({1.0f})}, {}, 13},
      {"Clip_attrs_opset6",
       "Clip",
       {f({4, 5}, -3, 3)},
       {attr_f("min", -0.5f), attr_f("max", 2.f)},
       6},
      {"Clip_nhwc", "Clip", {f({1, 5, 3, 7}, -8, 8), f32({0.f}), f32({6.f})}, {}, 13, kNHWC},
      {"HardSigmoid",
       "HardSigmoid",
       {f({3, 11}, -8, 8)},
       {attr_f("alpha", 0.3f), attr_f("beta", 0.4f)}},
      {"HardSigmoid_defaults", "HardSigmoid", {f({3, 11}, -8, 8)}},
      {"HardSwish", "HardSwish", {f({1, 4, 5, 6}, -6, 6)}, {}, 14},
      {"LeakyRelu", "LeakyRelu", {f({2, 9}, -4, 4)}, {attr_f("alpha", 0.1f)}},
      {"LeakyRelu_default", "LeakyRelu", {f({2, 9}, -4, 4)}},
      {"Tanh", "Tanh", {f({7, 13}, -4, 4)}},
      {"Exp", "Exp", {f({3, 1, 7}, -10, 10)}, {}, 17, Layout::kPlain, 1, 1e-6, 1e-6},
      {"Sqrt", "Sqrt", {f({13}, 0.001, 9)}},
      {"Neg_int64", "Neg", {ints({5, 3}, DType::kInt64, -100, 100)}},
      {"Abs", "Abs", {f({1, 1, 3})}},
      // ---- elementwise binary (broadcast both ways, scalars, int64 shape math)
      {"Add_same", "Add", {f({2, 3, 5, 7}), f({2, 3, 5, 7})}},
      {"Add_large_parallel", "Add", {f({1, 32, 64, 64}), f({1, 32, 64, 64})}},
      {"Mul_broadcast_both", "Mul", {f({1, 3, 1, 7}), f({2, 1, 5, 1})}},
      {"Mul_channel", "Mul", {f({2, 6, 5, 7}), cf({1, 6, 1, 1})}},
      {"Mul_rank_mismatch", "Mul", {f({2, 8400}), cf({1, 8400})}},
      {"Mul_scalar_const", "Mul", {f({1, 2, 13}), fixed(Tensor::scalar<float>(8.0f))}},
      {"Sub_scalar_first", "Sub", {f({}), f({3, 4})}},
      {"Sub_row_col", "Sub", {f({13}), f({3, 1})}},
      {"Div_lastdim", "Div", {f({2, 3, 5, 7}), f({7}, 0.5, 2)}},
      {"Div_scalar", "Div", {f({1, 2, 8400}), fixed(Tensor::scalar<float>(2.0f))}},
      {"Pow_square", "Pow", {f({3, 5}), fixed(Tensor::scalar<float>(2.0f))}},
      {"Pow_vector",
       "Pow",
       {f({4, 3}, 0.1, 3), f({3}, -2, 2)},
       {},
       17,
       Layout::kPlain,
       1,
       1e-5,
       1e-5},
      {"Add_int64",
       "Add",
       {ints({3, 4}, DType::kInt64, -50, 50), ints({4}, DType::kInt64, -50, 50)}},
      {"Mul_int64_scalar",
       "Mul",
       {ints({3}, DType::kInt64, -9, 9), fixed(Tensor::scalar<int64_t>(3))}},
      {"Div_int64", "Div", {ints({6}, DType::kInt64, 0, 1000), i64({1, 2, 3, 4, 5, 7})}},
      {"Sub_int64",
       "Sub",
       {ints({2, 1}, DType::kInt64, -9, 9), ints({1, 3}, DType::kInt64, -9, 9)}},
      {"Mul_nhwc_same", "Mul", {f({1, 8, 5, 7}), f({1, 8, 5, 7})}, {}, 17, kNHWC},
      {"Add_nhwc_scalar",
       "Add",
       {f({2, 3, 5, 7}), fixed(Tensor::scalar<float>(0.5f))},
       {},
       17,
       kNHWC},
      // ---- Concat
      {"Concat_axis1",
       "Concat",
       {f({1, 3, 5, 7}), f({1, 1, 5, 7}), f({1, 4, 5, 7})},
       {attr_i("axis", 1)}},
      // One image's channel rows (160, 80 and 40 KB): copied in pieces by all threads.
      {"Concat_axis1_long_rows",
       "Concat",
       {f({1, 4, 100, 100}), f({1, 2, 100, 100}), f({1, 1, 100, 100})},
       {attr_i("axis", 1)}},
      {"Concat_neg_axis", "Concat", {f({2, 3, 1}), f({2, 3, 4})}, {attr_i("axis", -1)}},
      {"Concat_axis0", "Concat", {f({1, 13}), f({3, 13})}, {attr_i("axis", 0)}},
      {"Concat_int64", "Concat", {i64({1, -1}), i64({4, 5, 6})}, {attr_i("axis", 0)}},
      {"Concat_nhwc_c",
       "Concat",
       {f({1, 3, 5, 7}), f({1, 5, 5, 7})},
       {attr_i("axis", 1)},
       17,
       kNHWC},
      {"Concat_nhwc_h",
       "Concat",
       {f({2, 3, 2, 7}), f({2, 3, 5, 7})},
       {attr_i("axis", 2)},
       17,
       kNHWC},
      {"Concat_nhwc_w",
       "Concat",
       {f({1, 3, 5, 1}), f({1, 3, 5, 6})},
       {attr_i("axis", -1)},
       17,
       kNHWC},
      // ---- Split
      {"Split_input_sizes",
       "Split",
       {f({1, 7, 3, 5}), i64({2, 5})},
       {attr_i("axis", 1)},
       13,
       Layout::kPlain,
       2},
      {"Split_attr_opset11",
       "Split",
       {f({1, 7, 13})},
       {attr_i("axis", -1), attr_is("split", {6, 7})},
       11,
       Layout::kPlain,
       2},
      {"Split_equal", "Split", {f({6, 2})}, {}, 17, Layout::kPlain, 3},
      {"Split_num_outputs_18",
       "Split",
       {f({2, 7})},
       {attr_i("axis", 1), attr_i("num_outputs", 3)},
       18,
       Layout::kPlain,
       3},
      {"Split_nhwc_c", "Split", {f({1, 6, 3, 5}), i64({2, 4})}, {attr_i("axis", 1)}, 13, kNHWC, 2},
      {"Split_nhwc_w", "Split", {f({1, 4, 3, 6})}, {attr_i("axis", 3)}, 13, kNHWC, 2},
      // ---- Slice
      {"Slice_axis1", "Slice", {f({1, 4, 30}), i64({0}), i64({2}), i64({1})}},
      {"Slice_negative", "Slice", {f({3, 13}), i64({-5}), i64({-1}), i64({-1})}},
      {"Slice_steps",
       "Slice",
       {f({2, 13, 7}), i64({1, 0}), i64({kMax, 7}), i64({1, 2}), i64({2, 3})}},
      {"Slice_reverse", "Slice", {f({3, 7}), i64({-1}), i64({kMin}), i64({1}), i64({-1})}},
      {"Slice_neg_step2", "Slice", {f({13}), i64({10}), i64({1}), i64({0}), i64({-3})}},
      {"Slice_clamped", "Slice", {f({4, 5}), i64({-100, 2}), i64({100, 1000})}},
      {"Slice_empty", "Slice", {f({4, 5}), i64({3}), i64({1}), i64({0})}},
      {"Slice_attrs_opset9",
       "Slice",
       {f({5, 6})},
       {attr_is("starts", {1}), attr_is("ends", {-1}), attr_is("axes", {1})},
       9},
      // ---- Reshape / Transpose / Gather / Unsqueeze / Squeeze / Flatten / Expand / Tile
      {"Reshape_zero_infer", "Reshape", {f({2, 3, 4}), i64({0, -1})}},
      {"Reshape_split_dims", "Reshape", {f({6, 4}), i64({2, -1, 2})}},
      {"Reshape_int64", "Reshape", {ints({2, 3}, DType::kInt64, 0, 9), i64({3, 2})}},
      {"Transpose_default", "Transpose", {f({2, 3, 5})}},
      {"Transpose_perm", "Transpose", {f({1, 2, 13, 7})}, {attr_is("perm", {0, 2, 1, 3})}},
      {"Transpose_to_nhwc", "Transpose", {f({2, 3, 5, 7})}, {attr_is("perm", {0, 2, 3, 1})}},
      // Batched matrix transposes in tiles: the last two axes (an attention's, 2 x 40 x 70, tiles
      // and edges), axis groups swapped, codes, one row.
      {"Transpose_last_two", "Transpose", {f({1, 2, 40, 70})}, {attr_is("perm", {0, 1, 3, 2})}},
      {"Transpose_groups", "Transpose", {f({3, 4, 5, 6, 7})}, {attr_is("perm", {0, 3, 4, 1, 2})}},
      {"Transpose_to_nchw", "Transpose", {f({2, 5, 7, 3})}, {attr_is("perm", {0, 3, 1, 2})}},
      {"Transpose_codes",
       "Transpose",
       {ints({2, 33, 70}, DType::kUInt8, 0, 255)},
       {attr_is("perm", {0, 2, 1})}},
      {"Transpose_one_row", "Transpose", {f({1, 1, 9})}, {attr_is("perm", {0, 2, 1})}},
      {"Gather_axis0_const",
       "Gather",
       {f({5, 3}), fixed(Tensor::from_vector<int64_t>({3}, {4, -1, 0}))}},
      {"Gather_axis1_int32",
       "Gather",
       {f({2, 7, 3}), ints({2, 3}, DType::kInt32, 0, 6)},
       {attr_i("axis", 1)}},
      {"Gather_scalar_index", "Gather", {i64({7, 8, 9}), fixed(Tensor::scalar<int64_t>(-2))}},
      {"Gather_last_axis",
       "Gather",
       {f({3, 4, 5}), ints({2}, DType::kInt64, -5, 4)},
       {attr_i("axis", -1)}},
      {"Unsqueeze_input", "Unsqueeze", {f({3, 5}), i64({0, -1})}, {}, 13},
      {"Unsqueeze_attr", "Unsqueeze", {f({3, 5})}, {attr_is("axes", {1})}, 11},
      {"Squeeze_input", "Squeeze", {f({3, 1, 5, 1}), i64({-1})}, {}, 13},
      {"Squeeze_all", "Squeeze", {f({1, 3, 1, 5})}, {}, 13},
      {"Squeeze_attr", "Squeeze", {f({1, 3, 1})}, {attr_is("axes", {0})}, 11},
      {"Flatten_default", "Flatten", {f({2, 3, 4, 5})}},
      {"Flatten_axis0", "Flatten", {f({2, 3})}, {attr_i("axis", 0)}},
      {"Flatten_neg", "Flatten", {f({2, 3, 4})}, {attr_i("axis", -1)}},
      {"Expand", "Expand", {f({3, 1}), i64({2, 3, 4})}},
      {"Expand_bidirectional", "Expand", {f({1, 4}), i64({3, 1})}},
      {"Tile", "Tile", {f({2, 3}), i64({2, 3})}},
      // ---- shape / constants / casts
      {"Shape", "Shape", {f({2, 3, 4})}},
      {"Shape_start_end", "Shape", {f({2, 3, 4, 5})}, {attr_i("start", 1), attr_i("end", -1)}, 15},
      {"Constant_tensor",
       "Constant",
       {},
       {attr_t("value", Tensor::from_vector<float>({2, 2}, {1, -2, 3.5f, 4}))}},
      {"Constant_floats", "Constant", {}, {attr_fs("value_floats", {0.5f, 1.5f})}},
      {"Constant_int", "Constant", {}, {attr_i("value_int", 42)}},
      {"Constant_ints", "Constant", {}, {attr_is("value_ints", {1, -2, 3})}},
      {"Cast_f32_i64", "Cast", {f({3, 5}, -5, 5)}, {attr_i("to", 7)}},
      {"Cast_i64_f32", "Cast", {ints({7}, DType::kInt64, -1000, 1000)}, {attr_i("to", 1)}},
      {"Cast_f32_bool", "Cast", {f({13}, -1, 1)}, {attr_i("to", 9)}},
      {"Cast_f32_u8", "Cast", {f({4, 3}, 0, 250)}, {attr_i("to", 2)}},
      {"Cast_i32_i64", "Cast", {ints({5}, DType::kInt32, -70000, 70000)}, {attr_i("to", 7)}},
      {"Identity", "Identity", {f({3, 7})}},
      {"ConstantOfShape_default", "ConstantOfShape", {i64({2, 3})}},
      {"ConstantOfShape_int",
       "ConstantOfShape",
       {i64({4})},
       {attr_t("value", Tensor::from_vector<int64_t>({1}, {7}))}},
      {"Range_float",
       "Range",
       {fixed(Tensor::scalar<float>(0.5f)), fixed(Tensor::scalar<float>(4.0f)),
        fixed(Tensor::scalar<float>(0.75f))}},
      {"Range_int_down",
       "Range",
       {fixed(Tensor::scalar<int64_t>(10)), fixed(Tensor::scalar<int64_t>(1)),
        fixed(Tensor::scalar<int64_t>(-3))}},
      // ---- pooling
      {"MaxPool_5x5_sppf", "MaxPool", {f({1, 8, 20, 20})}, pool({5, 5}, {1, 1}, {2, 2, 2, 2})},
      {"MaxPool_3x3_s2_p1", "MaxPool", {f({2, 3, 13, 7})}, pool({3, 3}, {2, 2}, {1, 1, 1, 1})},
      {"MaxPool_2x2_ceil",
       "MaxPool",
       {f({1, 2, 7, 7})},
       with(pool({2, 2}, {2, 2}, {0, 0, 0, 0}), attr_i("ceil_mode", 1))},
      {"MaxPool_ceil_pad",
       "MaxPool",
       {f({1, 2, 6, 9})},
       with(pool({3, 3}, {2, 2}, {1, 1, 1, 1}), attr_i("ceil_mode", 1))},
      {"MaxPool_same_upper",
       "MaxPool",
       {f({1, 3, 7, 8})},
       {attr_is("kernel_shape", {3, 2}), attr_is("strides", {2, 3}),
        attr_s("auto_pad", "SAME_UPPER")}},
      {"MaxPool_same_lower",
       "MaxPool",
       {f({1, 3, 8, 7})},
       {attr_is("kernel_shape", {2, 4}), attr_s("auto_pad", "SAME_LOWER")}},
      {"MaxPool_valid",
       "MaxPool",
       {f({1, 3, 9, 7})},
       {attr_is("kernel_shape", {3, 3}), attr_is("strides", {2, 2}), attr_s("auto_pad", "VALID")}},
      {"MaxPool_dilated",
       "MaxPool",
       {f({1, 2, 11, 9})},
       with(pool({3, 2}, {1, 2}, {2, 1, 2, 0}), attr_is("dilations", {2, 3}))},
      {"MaxPool_1d", "MaxPool", {f({2, 3, 13})}, pool({3}, {2}, {1, 1})},
      {"MaxPool_nhwc_sppf",
       "MaxPool",
       {f({1, 16, 9, 11})},
       pool({5, 5}, {1, 1}, {2, 2, 2, 2}),
       17,
       kNHWC},
      {"MaxPool_nhwc_ceil",
       "MaxPool",
       {f({2, 3, 7, 6})},
       with(pool({3, 3}, {2, 2}, {1, 0, 1, 0}), attr_i("ceil_mode", 1)),
       17,
       kNHWC},
      {"MaxPool_nhwc_dilated_strided",
       "MaxPool",
       {f({2, 19, 11, 13})},
       with(pool({3, 2}, {2, 3}, {2, 1, 2, 0}), attr_is("dilations", {2, 3})),
       17,
       kNHWC},
      {"MaxPool_nhwc_same",
       "MaxPool",
       {f({1, 5, 7, 8})},
       {attr_is("kernel_shape", {3, 3}), attr_is("strides", {2, 2}),
        attr_s("auto_pad", "SAME_UPPER")},
       17,
       kNHWC},
      {"AvgPool_exclude_pad",
       "AveragePool",
       {f({1, 3, 13, 7})},
       pool({3, 3}, {2, 2}, {1, 1, 1, 1})},
      {"AvgPool_include_pad",
       "AveragePool",
       {f({1, 3, 13, 7})},
       with(pool({3, 3}, {2, 2}, {1, 1, 1, 1}), attr_i("count_include_pad", 1))},
      {"AvgPool_ceil_include",
       "AveragePool",
       {f({1, 2, 8, 7})},
       with(with(pool({3, 3}, {2, 2}, {1, 1, 1, 1}), attr_i("ceil_mode", 1)),
            attr_i("count_include_pad", 1))},
      {"AvgPool_same_lower",
       "AveragePool",
       {f({1, 3, 7, 9})},
       {attr_is("kernel_shape", {4, 3}), attr_is("strides", {2, 2}),
        attr_s("auto_pad", "SAME_LOWER")}},
      {"AvgPool_nhwc",
       "AveragePool",
       {f({1, 6, 9, 9})},
       pool({5, 5}, {1, 1}, {2, 2, 2, 2}),
       17,
       kNHWC},
      {"AvgPool_nhwc_include",
       "AveragePool",
       {f({2, 3, 7, 5})},
       with(pool({3, 3}, {2, 2}, {1, 1, 1, 1}), attr_i("count_include_pad", 1)),
       17,
       kNHWC},
      {"GlobalAveragePool", "GlobalAveragePool", {f({2, 5, 7, 3})}},
      {"GlobalMaxPool", "GlobalMaxPool", {f({2, 5, 7, 3})}},
      // ---- resize (opset 13: X, roi, scales, sizes)
      {"Resize_nearest_asym_floor_x2",
       "Resize",
       {f({1, 4, 5, 7}), no_roi, f32({1, 1, 2, 2})},
       resize_attrs("nearest", "asymmetric", "floor"),
       13},
      {"Resize_nearest_nhwc_x2",
       "Resize",
       {f({1, 4, 5, 7}), no_roi, f32({1, 1, 2, 2})},
       resize_attrs("nearest", "asymmetric", "floor"),
       13,
       kNHWC},
      {"Resize_nearest_half_pixel_down",
       "Resize",
       {f({1, 2, 13, 11}), no_roi, none(), i64({1, 2, 5, 7})},
       resize_attrs("nearest", "half_pixel", "round_prefer_floor"),
       13},
      {"Resize_nearest_prefer_ceil",
       "Resize",
       {f({1, 2, 6, 8}), no_roi, f32({1, 1, 0.5f, 0.5f})},
       resize_attrs("nearest", "half_pixel", "round_prefer_ceil"),
       13},
      {"Resize_nearest_prefer_floor_ties",
       "Resize",
       {f({1, 2, 6, 8}), no_roi, f32({1, 1, 0.5f, 0.5f})},
       resize_attrs("nearest", "half_pixel", "round_prefer_floor"),
       13},
      {"Resize_nearest_ceil_up",
       "Resize",
       {f({1, 1, 4, 5}), no_roi, none(), i64({1, 1, 7, 9})},
       resize_attrs("nearest", "asymmetric", "ceil"),
       13},
      {"Resize_nearest_align_corners",
       "Resize",
       {f({1, 3, 4, 5}), no_roi, none(), i64({1, 3, 9, 3})},
       resize_attrs("nearest", "align_corners", "round_prefer_floor"),
       13},
      {"Resize_nearest_pytorch_half",
       "Resize",
       {f({1, 2, 5, 4}), no_roi, none(), i64({1, 2, 1, 11})},
       resize_attrs("nearest", "pytorch_half_pixel", "round_prefer_floor"),
       13},
      {"Resize_nearest_tf_nn",
       "Resize",
       {f({1, 2, 5, 4}), no_roi, f32({1, 1, 1.5f, 2.5f})},
       resize_attrs("nearest", "tf_half_pixel_for_nn", "round_prefer_ceil"),
       13},
      {"Resize_nearest_default_attrs",
       "Resize",
       {f({1, 3, 5, 6}), no_roi, f32({1, 1, 1.7f, 0.6f})},
       {attr_s("mode", "nearest")},
       13},
      {"Resize_nearest_3d_rank",
       "Resize",
       {f({2, 3, 5}), no_roi, f32({1, 2, 1.5f})},
       resize_attrs("nearest", "asymmetric", "floor"),
       13},
      {"Resize_linear_half_pixel_x2",
       "Resize",
       {f({1, 3, 5, 7}), no_roi, f32({1, 1, 2, 2})},
       resize_attrs("linear", "half_pixel", ""),
       13},
      {"Resize_linear_align_sizes",
       "Resize",
       {f({2, 2, 4, 5}), no_roi, none(), i64({2, 2, 7, 3})},
       resize_attrs("linear", "align_corners", ""),
       13},
      {"Resize_linear_align_scales_down",
       "Resize",
       {f({1, 2, 5, 9}), no_roi, f32({1, 1, 0.6f, 0.7f})},
       resize_attrs("linear", "align_corners", ""),
       13},
      {"Resize_linear_pytorch_down",
       "Resize",
       {f({1, 2, 9, 13}), no_roi, none(), i64({1, 2, 4, 1})},
       resize_attrs("linear", "pytorch_half_pixel", ""),
       13},
      {"Resize_linear_asym",
       "Resize",
       {f({1, 1, 3, 4}), no_roi, f32({1, 1, 2.5f, 1.5f})},
       resize_attrs("linear", "asymmetric", ""),
       13},
      {"Resize_linear_nhwc",
       "Resize",
       {f({1, 5, 6, 4}), no_roi, f32({1, 1, 2, 0.5f})},
       resize_attrs("linear", "half_pixel", ""),
       13,
       kNHWC},
      {"Resize_opset10_scales",
       "Resize",
       {f({1, 2, 3, 4}), f32({1, 1, 2, 3})},
       {attr_s("mode", "nearest")},
       10},
      {"Upsample_opset9",
       "Upsample",
       {f({1, 2, 3, 4}), f32({1, 1, 2, 2})},
       {attr_s("mode", "nearest")},
       9},
      {"Upsample_linear_opset9",
       "Upsample",
       {f({1, 2, 3, 4}), f32({1, 1, 2, 2})},
       {attr_s("mode", "linear")},
       9},
      // ---- matmul / gemm
      {"MatMul_batch_2d", "MatMul", {f({2, 3, 4, 5}), cf({5, 6})}},
      {"MatMul_broadcast_both", "MatMul", {f({3, 1, 4, 5}), f({2, 5, 7})}},
      {"MatMul_vec_mat", "MatMul", {f({5}), f({2, 5, 3})}},
      {"MatMul_mat_vec", "MatMul", {f({2, 4, 5}), f({5})}},
      {"MatMul_vec_vec", "MatMul", {f({13}), f({13})}},
      {"MatMul_attention",
       "MatMul",
       {f({1, 2, 100, 32}), f({1, 2, 32, 100})},
       {},
       17,
       Layout::kPlain,
       1,
       1e-4,
       1e-5},
      {"MatMul_odd", "MatMul", {f({13, 7}), f({7, 3})}},
      {"MatMul_large_k",
       "MatMul",
       {f({3, 700}), f({700, 5})},
       {},
       17,
       Layout::kPlain,
       1,
       1e-4,
       1e-5},
      {"Gemm_plain_bias", "Gemm", {f({3, 5}), cf({5, 4}), cf({4})}},
      {"Gemm_trans_alpha_beta",
       "Gemm",
       {f({5, 3}), cf({4, 5}), f({3, 1})},
       {attr_i("transA", 1), attr_i("transB", 1), attr_f("alpha", 0.5f), attr_f("beta", -2.0f)}},
      {"Gemm_transB_runtime", "Gemm", {f({2, 7}), f({3, 7}), f({2, 3})}, {attr_i("transB", 1)}},
      {"Gemm_no_c", "Gemm", {f({1, 13}), cf({13, 3})}, {}, 13},
      {"Gemm_scalar_c", "Gemm", {f({2, 2}), cf({2, 2}), fixed(Tensor::scalar<float>(1.5f))}},
      // ---- softmax
      // ---- reductions
      {"ReduceMean_hw_keep", "ReduceMean", {f({1, 8, 5, 6})}, {attr_is("axes", {2, 3})}, 13},
      {"ReduceMean_axes_input_drop",
       "ReduceMean",
       {f({2, 3, 4}), i64({-1})},
       {attr_i("keepdims", 0)},
       18},
      {"ReduceMean_all", "ReduceMean", {f({3, 4, 5})}, {}, 13},
      {"ReduceMax_axis1", "ReduceMax", {f({2, 6, 3}, -9, 9)}, {attr_is("axes", {1})}, 13},
      {"ReduceSum_axes_input", "ReduceSum", {f({2, 6, 3}), i64({0, 2})}, {}, 13},
      {"Softmax_last", "Softmax", {f({2, 3, 17}, -10, 10)}},
      {"Softmax_dfl_axis1", "Softmax", {f({1, 16, 4, 300}, -10, 10)}, {attr_i("axis", 1)}},
      {"Softmax_axis0", "Softmax", {f({5, 3}, -5, 5)}, {attr_i("axis", 0)}},
      {"Softmax_opset11_coerce", "Softmax", {f({2, 3, 4}, -5, 5)}, {attr_i("axis", 1)}, 11},
      {"Softmax_opset11_default", "Softmax", {f({2, 3, 5}, -5, 5)}, {}, 11},
      {"LogSoftmax", "LogSoftmax", {f({3, 7}, -5, 5)}},
      {"LogSoftmax_axis1", "LogSoftmax", {f({2, 5, 3}, -5, 5)}, {attr_i("axis", 1)}},
      // ---- conv
      {"Conv_3x3_s1_p1",
       "Conv",
       {f({1, 4, 9, 11}), cf({8, 4, 3, 3}), cf({8})},
       {attr_is("pads", {1, 1, 1, 1})}},
      {"Conv_3x3_s2_p1",
       "Conv",
       {f({2, 3, 13, 10}), cf({5, 3, 3, 3}), cf({5})},
       {attr_is("pads", {1, 1, 1, 1}), attr_is("strides", {2, 2})}},
      {"Conv_1x1", "Conv", {f({1, 16, 7, 5}), cf({12, 16, 1, 1}), cf({12})}},
      {"Conv_1x1_no_bias", "Conv", {f({1, 3, 4, 4}), cf({2, 3, 1, 1})}},
      {"Conv_depthwise_3x3",
       "Conv",
       {f({1, 6, 10, 10}), cf({6, 1, 3, 3}), cf({6})},
       {attr_i("group", 6), attr_is("pads", {1, 1, 1, 1})}},
      {"Conv_depthwise_s2",
       "Conv",
       {f({1, 8, 11, 9}), cf({8, 1, 3, 3}), cf({8})},
       {attr_i("group", 8), attr_is("pads", {1, 1, 1, 1}), attr_is("strides", {2, 2})}},
      {"Conv_grouped",
       "Conv",
       {f({1, 8, 6, 7}), cf({6, 4, 3, 3}), cf({6})},
       {attr_i("group", 2), attr_is("pads", {1, 1, 1, 1})}},
      {"Conv_odd_asym_pads",
       "Conv",
       {f({1, 3, 13, 7}), cf({5, 3, 3, 5}), cf({5})},
       {attr_is("pads", {0, 2, 1, 1})}},
      {"Conv_dilated",
       "Conv",
       {f({1, 2, 11, 12}), cf({3, 2, 3, 3}), cf({3})},
       {attr_is("dilations", {2, 2}), attr_is("pads", {2, 2, 2, 2})}},
      {"Conv_64_to_1",
       "Conv",
       {f({1, 64, 8, 8}), cf({1, 64, 1, 1}), cf({1})},
       {},
       17,
       Layout::kPlain,
       1,
       1e-4,
       1e-5},
      {"Conv_same_upper",
       "Conv",
       {f({1, 3, 7, 8}), cf({4, 3, 3, 3})},
       {attr_s("auto_pad", "SAME_UPPER"), attr_is("strides", {2, 2})}},
      {"Conv_nhwc_3x3",
       "Conv",
       {f({1, 4, 9, 11}), cf({8, 4, 3, 3}), cf({8})},
       {attr_is("pads", {1, 1, 1, 1})},
       17,
       kNHWC},
      {"Conv_nhwc_depthwise",
       "Conv",
       {f({1, 6, 10, 10}), cf({6, 1, 3, 3}), cf({6})},
       {attr_i("group", 6), attr_is("pads", {1, 1, 1, 1})},
       17,
       kNHWC},
      {"Conv_nhwc_1x1_s2",
       "Conv",
       {f({1, 5, 9, 9}), cf({7, 5, 1, 1}), cf({7})},
       {attr_is("strides", {2, 2})},
       17,
       kNHWC},
  };
}

// ---- the loop ----------------------------------------------------------------------------

uint32_t seed_of(const std::string& s) {
  uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

Tensor random_tensor(const In& spec, std::mt19937& rng) {
  Tensor t(spec.dtype, spec.shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (spec.dtype == DType::kFloat32) {
      t.data<float>()[i] = std::uniform_real_distribution<float>(static_cast<float>(spec.lo),
                                                                 static_cast<float>(spec.hi))(rng);
    } else {
      const int64_t v = std::uniform_int_distribution<int64_t>(static_cast<int64_t>(spec.lo),
                                                               static_cast<int64_t>(spec.hi))(rng);
      switch (spec.dtype) {
        case DType::kInt64:
          t.data<int64_t>()[i] = v;
          break;
        case DType::kInt32:
          t.data<int32_t>()[i] = static_cast<int32_t>(v);
          break;
        case DType::kUInt8:
          t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
          break;
        default:
          ADD_FAILURE() << "no random generator for " << dtype_name(spec.dtype);
      }
    }
  }
  return t;
}

bool is_nhwc_activation(const In& spec, Layout layout) {
  return layout == Layout::kNHWC && spec.shape.size() == 4 && !spec.constant && !spec.omitted;
}

// One case built and run: the node, the logical inputs, and the kernel's outputs converted
// back to the logical layout.
struct KernelRun {
  Node node;
  std::vector<Tensor> inputs;
  std::vector<ValueDesc> output_descs;
  std::vector<Tensor> outputs;
};

// Builds the kernel through create_kernel and runs it on the case's random (fixed-seed) inputs.
void build_and_run(const Case& c, KernelRun& r) {
  r.node.name = c.name;
  r.node.op_type = c.op;
  r.node.attrs = c.attrs;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    r.node.inputs.push_back(c.inputs[i].omitted ? "" : "in" + std::to_string(i));
  for (int i = 0; i < c.outputs; ++i) r.node.outputs.push_back("out" + std::to_string(i));

  // Logical inputs (for the reference) and what the kernel gets (physical under NHWC).
  std::mt19937 rng(seed_of(c.name));
  std::vector<Tensor> physical;
  r.inputs.reserve(c.inputs.size());
  for (const In& spec : c.inputs) {
    Tensor t;
    if (!spec.omitted) t = spec.value.raw() ? spec.value : random_tensor(spec, rng);
    r.inputs.push_back(t);
    physical.push_back(is_nhwc_activation(spec, c.layout) ? ref::to_nhwc(t) : t);
  }
  KernelInit init{r.node, {}, c.opset, c.layout};
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    ValueDesc d;
    d.dtype = c.inputs[i].omitted ? DType::kUndefined : r.inputs[i].dtype();
    d.shape = r.inputs[i].shape();
    d.constant = c.inputs[i].constant ? &r.inputs[i] : nullptr;
    init.inputs.push_back(d);
  }
  std::unique_ptr<Kernel> kernel = create_kernel(init);
  r.output_descs = kernel->outputs;

  std::vector<Tensor> got;
  for (const ValueDesc& d : kernel->outputs)
    got.emplace_back(d.dtype, physical_shape(d.shape, c.layout));
  std::vector<const Tensor*> in_ptrs;
  for (size_t i = 0; i < physical.size(); ++i)
    in_ptrs.push_back(c.inputs[i].omitted ? nullptr : &physical[i]);
  std::vector<Tensor*> out_ptrs;
  for (Tensor& t : got) out_ptrs.push_back(&t);
  kernel->run(in_ptrs, out_ptrs);
  for (const Tensor& t : got)
    r.outputs.push_back(c.layout == Layout::kNHWC && t.rank() == 4 ? ref::to_nchw(t) : t);
}

class OpsTest : public ::testing::TestWithParam<Case> {};

TEST_P(OpsTest, MatchesReference) {
  const Case& c = GetParam();
  ASSERT_NE(find_kernel("", c.op), nullptr) << c.op << " has no kernel registered";
  KernelRun r;
  build_and_run(c, r);
  const std::vector<Tensor> expected = ref::run(r.node, r.inputs, c.opset);
  ASSERT_EQ(r.outputs.size(), expected.size()) << c.name;

  for (size_t o = 0; o < expected.size(); ++o) {
    const Tensor& want = expected[o];
    const Tensor& got = r.outputs[o];
    ASSERT_EQ(r.output_descs[o].dtype, want.dtype()) << c.name << " output " << o;
    ASSERT_EQ(shape_str(r.output_descs[o].shape), shape_str(want.shape()))
        << c.name << " output " << o;
    double max_abs = 0, worst_excess = 0, err2 = 0, ref2 = 0;
    int64_t worst = -1;
    for (int64_t i = 0; i < want.numel(); ++i) {
      const double g = ref::value_at(got, i), w = ref::value_at(want, i);
      const double e = std::fabs(g - w);
      const double excess = e - (c.atol + c.rtol * std::fabs(w));
      if (!(excess <= worst_excess)) {  // also catches NaN
        worst_excess = excess;
        worst = i;
      }
      max_abs = std::max(max_abs, e);
      err2 += e * e;
      ref2 += w * w;
    }
    const double nmse = err2 / std::max(ref2, 1e-30);
    EXPECT_LT(worst, 0) << c.name << " output " << o << ": element " << worst << " got "
                        << ref::value_at(got, worst) << " want " << ref::value_at(want, worst)
                        << " (max abs err " << max_abs << ", nmse " << nmse << ")";
    EXPECT_LE(nmse, 1e-9) << c.name << " output " << o << ": max abs err " << max_abs;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, OpsTest, ::testing::ValuesIn(table()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

// ONNX's test_resize_downsample_scales_linear_align_corners, by hand: with scales, align_corners
// divides by in_len * scale - 1 (here 4 * 0.6 - 1 = 1.4), not by the rounded-down output length.
TEST(OpsResize, AlignCornersWithScalesUsesTheUnroundedLength) {
  const Tensor x = Tensor::from_vector<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  Case c{"align",
         "Resize",
         {fixed(x), none(), f32({1, 1, 0.6f, 0.6f})},
         {attr_s("mode", "linear"), attr_s("coordinate_transformation_mode", "align_corners")},
         13};
  KernelRun r;
  build_and_run(c, r);
  const Tensor& y = r.outputs.at(0);
  ASSERT_EQ(y.shape(), (Shape{1, 1, 1, 2}));
  EXPECT_FLOAT_EQ(y.data<float>()[0], 1.0f);
  EXPECT_NEAR(y.data<float>()[1], 1.0f + 3.0f / 1.4f, 1e-6);  // x = 1 * (4 - 1) / 1.4
}

// NHWC MaxPool runs separably (columns, then rows); it must give the plain window-at-a-time
// result bit for bit where order shows: ties of -0 and +0 (the first in row-major order wins),
// NaN (ignored), -inf, and windows over padding.
TEST(OpsMaxPool, NhwcGivesThePlainBitsOnTiesAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float pattern[] = {0.0f, -0.0f, nan, -inf, -0.0f, 0.0f, 1.0f, -1.0f, nan, 0.0f, -0.0f};
  Tensor x(DType::kFloat32, {1, 5, 7, 6});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = pattern[(i * 7 + i / 13) % 11];
  using A = std::map<std::string, Attribute>;
  for (const A& attrs : {A{attr_is("kernel_shape", {3, 3}), attr_is("pads", {1, 1, 1, 1})},
                         A{attr_is("kernel_shape", {2, 3}), attr_is("strides", {2, 1}),
                           attr_is("pads", {0, 2, 1, 0})},
                         A{attr_is("kernel_shape", {2, 2}), attr_is("strides", {1, 2}),
                           attr_is("pads", {1, 1, 1, 1}), attr_is("dilations", {2, 2})}}) {
    In activation = fixed(x);
    activation.constant = false;  // an activation: the NHWC kernel gets it converted
    Case plain{"plain", "MaxPool", {activation}, attrs, 17};
    Case nhwc = plain;
    nhwc.layout = kNHWC;
    KernelRun a, b;
    build_and_run(plain, a);
    build_and_run(nhwc, b);
    const Tensor &ya = a.outputs.at(0), &yb = b.outputs.at(0);
    ASSERT_EQ(ya.shape(), yb.shape());
    int64_t differ = 0;

    for (int64_t i = 0; i < ya.numel(); ++i)
      differ += std::memcmp(ya.data<float>() + i, yb.data<float>() + i, sizeof(float)) != 0;
    EXPECT_EQ(differ, 0) << shape_str(ya.shape());
  }
}

// Bad attributes, shapes or inputs fail with one line naming the node and the problem.
TEST(OpsErrors, NameTheNodeAndTheProblem) {
  const std::vector<std::pair<Case, std::string>> cases = {
      {{"bad_reshape", "Reshape", {f({2, 3}), i64({4, -1})}}, "cannot reshape"},
      {{"bad_concat", "Concat", {f({1, 2, 3}), f({1, 3, 4})}, {attr_i("axis", 1)}},
       "does not match"},
      {{"concat_no_axis", "Concat", {f({1, 2})}}, "axis"},
      {{"runtime_starts", "Slice", {f({4}), ints({1}, DType::kInt64, 0, 1), i64({3})}}, "constant"},
      {{"gather_out_of_range", "Gather", {f({3, 2}), i64({3})}}, "out of range"},
      {{"bad_broadcast", "Add", {f({2, 3}), f({4})}}, "broadcast"},
      {{"bad_split", "Split", {f({7})}, {}, 13, Layout::kPlain, 2}, "evenly"},
      {{"cubic_resize",
        "Resize",
        {f({1, 1, 2, 2}), none(), f32({1, 1, 2, 2})},
        {attr_s("mode", "cubic")},
        13},
       "cubic"},
      {{"matmul_inner", "MatMul", {f({2, 3}), f({4, 2})}}, "inner dimensions"},
      {{"bad_perm", "Transpose", {f({2, 3})}, {attr_is("perm", {0, 0})}}, "repeats"},
      {{"pool_no_kernel", "MaxPool", {f({1, 1, 4, 4})}}, "kernel_shape"},
      {{"int_div_zero", "Div", {i64({4, 5}), i64({2, 0})}}, "division by zero"},
  };
  for (const auto& [c, part] : cases) {
    KernelRun r;
    try {
      build_and_run(c, r);
      ADD_FAILURE() << c.name << ": expected an error mentioning '" << part << "'";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("'" + c.name + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(part), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace edgeq
