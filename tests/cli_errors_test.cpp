// Bad input to the CLI: exit non-zero with one clear line on stderr, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "cli_util.h"
#include "core/file_io.h"
#include "core/npy.h"
#include "ir/onnx_io.h"
#include "test_util.h"

namespace edgeq {
namespace {

// A two-node model: images -> Sigmoid -> (op) -> y.
Graph tiny_model(const std::string& second_op) {
  Graph g;
  g.inputs.push_back({"images", DType::kFloat32, {1, 3, 8, 8}});
  g.outputs.push_back({"y", DType::kFloat32, {1, 3, 8, 8}});
  g.nodes.push_back({"sig", "Sigmoid", "", {"images"}, {"s"}, {}});
  g.nodes.push_back({"weird", second_op, "", {"s"}, {"y"}, {}});
  return g;
}

void expect_one_line_error(const test::CliResult& r, const std::string& must_contain) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(r.exit_code, 128) << "crashed: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.err;
}

TEST(CliErrors, TruncatedAndForeignModelFiles) {
  std::string dir = test::temp_dir("badmodel");
  std::string good = serialize_onnx(tiny_model("Sigmoid"));
  write_file_atomic(dir + "/trunc.onnx", good.substr(0, good.size() / 2));
  write_file_atomic(dir + "/text.onnx", "this is not a model\n");
  Tensor x(DType::kFloat32, {1, 3, 8, 8});
  save_npy(x, dir + "/x.npy");
  expect_one_line_error(test::run_cli("infer --model " + dir + "/trunc.onnx --input " + dir +
                                      "/x.npy --out " + dir + "/o"),
                        "trunc.onnx");
  expect_one_line_error(test::run_cli("infer --model " + dir + "/text.onnx --input " + dir +
                                      "/x.npy --out " + dir + "/o"),
                        "text.onnx");
  expect_one_line_error(test::run_cli("infer --model " + dir + "/missing.onnx --input " + dir +
                                      "/x.npy --out " + dir + "/o"),
                        "missing.onnx");
}

// The int8 pair options (issue 26): an unknown --emulate level, --emulate without --exec int8,
// and --saturation-safe / --reduce-range where no u8 x s8 pair runs: one line, nothing written.
TEST(CliErrors, Int8PairOptionsOutOfPlace) {
  std::string dir = test::temp_dir("pairopts");
  save_onnx(tiny_model("Sigmoid"), dir + "/m.onnx");
  const std::string m = " --model " + dir + "/m.onnx";
  expect_one_line_error(test::run_cli("bench" + m + " --exec int8 --emulate avx3"),
                        "--emulate: 'avx3' is not one of none, avx2");
  expect_one_line_error(test::run_cli("bench" + m + " --emulate avx2"), "needs exec int8");
  expect_one_line_error(test::run_cli("compare --ref " + dir + "/m.onnx --test " + dir +
                                      "/m.onnx --images " + dir + " --emulate avx2"),
                        "emulate avx2 needs exec int8");
  const std::string q = "quantize" + m + " --stats " + dir + "/s.cbor --out " + dir + "/q.onnx";
  expect_one_line_error(test::run_cli(q + " --scheme w8a16 --saturation-safe"),
                        "saturation_safe: scheme w8a16 has no u8 x s8 int16 pairs");
  expect_one_line_error(test::run_cli(q + " --scheme w8a16 --reduce-range"), "reduce_range");
  expect_one_line_error(test::run_cli(q + " --scheme w8a8 --reduce-range --saturation-safe"),
                        "choose one");
  EXPECT_FALSE(std::filesystem::exists(dir + "/q.onnx"));
}

TEST(CliErrors, UnknownOpNamesNodeAndOp) {
  std::string dir = test::temp_dir("unknownop");
  save_onnx(tiny_model("FancyNewOp"), dir + "/m.onnx");
  save_npy(Tensor(DType::kFloat32, {1, 3, 8, 8}), dir + "/x.npy");
  auto r = test::run_cli("infer --model " + dir + "/m.onnx --input " + dir + "/x.npy --out " + dir +
                         "/o");
  expect_one_line_error(r, "FancyNewOp");
  EXPECT_NE(r.err.find("weird"), std::string::npos) << r.err;
}

TEST(CliErrors, WrongInputShape) {
  std::string dir = test::temp_dir("wrongshape");
  save_onnx(tiny_model("Sigmoid"), dir + "/m.onnx");
  save_npy(Tensor(DType::kFloat32, {1, 3, 9, 8}), dir + "/x.npy");
  auto r = test::run_cli("infer --model " + dir + "/m.onnx --input " + dir + "/x.npy --out " + dir +
                         "/o");
  expect_one_line_error(r, "[1,3,8,8]");
}

TEST(CliErrors, MissingImage) {
  std::string dir = test::temp_dir("noimage");
  save_onnx(tiny_model("Sigmoid"), dir + "/m.onnx");
  auto r = test::run_cli("infer --model " + dir + "/m.onnx --image " + dir + "/nope.jpg --out " +
                         dir + "/o");
  expect_one_line_error(r, "nope.jpg");
}

TEST(CliInfer, WritesEveryOutputAsNpy) {
  std::string dir = test::temp_dir("inferok");
  save_onnx(tiny_model("Sigmoid"), dir + "/m.onnx");
  Tensor x(DType::kFloat32, {1, 3, 8, 8});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = float(i - 96) / 32.f;
  save_npy(x, dir + "/x.npy");
  auto r = test::run_cli("infer --model " + dir + "/m.onnx --input " + dir + "/x.npy --out " + dir +
                         "/o");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Tensor y = load_npy(dir + "/o/y.npy");
  ASSERT_EQ(y.shape(), x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) {
    double s = 1.0 / (1.0 + std::exp(-double(x.data<float>()[i])));
    double ss = 1.0 / (1.0 + std::exp(-s));
    EXPECT_NEAR(y.data<float>()[i], ss, 1e-6);
  }
}

// x [1,4] float -> QuantizeLinear (scale 0.5, zero point 10, uint8) -> y: an output that carries
// codes (what quantize --quantize-io writes at a model's end).
Graph quantize_linear_model() {
  Graph g;
  g.inputs.push_back({"x", DType::kFloat32, {1, 4}});
  g.outputs.push_back({"y", DType::kUInt8, {1, 4}});
  g.initializers["scale"] = Tensor::scalar<float>(0.5f);
  Tensor zp(DType::kUInt8, {});
  zp.data<uint8_t>()[0] = 10;
  g.initializers["zp"] = zp;
  g.nodes.push_back({"q", "QuantizeLinear", "", {"x", "scale", "zp"}, {"y"}, {}});
  g.set_opset("", 13);
  return g;
}

// Issue 46: infer wrote a QuantizeLinear output as dequantized floats (an ONNX node test that
// expects uint8 codes failed) and took --raw on a float model. Each output is written in its
// declared type now, the float view with --dequantize; options that do nothing are refused.
TEST(CliInfer, WritesEachOutputInItsDeclaredType) {
  const std::string dir = test::temp_dir("infer_types");
  save_onnx(quantize_linear_model(), dir + "/q.onnx");
  save_npy(Tensor::from_vector<float>({1, 4}, {-1.f, 0.25f, 3.f, 200.f}), dir + "/x.npy");
  const std::string base = "infer --model " + dir + "/q.onnx --input " + dir + "/x.npy --out ";
  auto r = test::run_cli(base + dir + "/codes");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Tensor y = load_npy(dir + "/codes/y.npy");
  ASSERT_EQ(y.dtype(), DType::kUInt8);
  // round half to even of x / 0.5, plus 10, saturated: -2+10, 0+10 (0.5 rounds to 0), 6+10, 255.
  EXPECT_EQ(y.to_ints(), (std::vector<int64_t>{8, 10, 16, 255}));
  EXPECT_NE(r.out.find("y uint8 [1,4]"), std::string::npos) << r.out;
  r = test::run_cli(base + dir + "/floats --dequantize");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Tensor f = load_npy(dir + "/floats/y.npy");
  ASSERT_EQ(f.dtype(), DType::kFloat32);
  EXPECT_EQ(f.to_floats(), (std::vector<float>{-1.f, 0.f, 3.f, 122.5f}));
  expect_one_line_error(test::run_cli(base + dir + "/o --raw --dequantize"), "choose one");
  // A float model: neither option does anything, both are refused before any work.
  save_onnx(tiny_model("Sigmoid"), dir + "/m.onnx");
  save_npy(Tensor(DType::kFloat32, {1, 3, 8, 8}), dir + "/x8.npy");
  const std::string fl =
      "infer --model " + dir + "/m.onnx --input " + dir + "/x8.npy --out " + dir + "/f ";
  expect_one_line_error(test::run_cli(fl + "--raw"),
                        "--raw: " + dir + "/m.onnx has no input or output that carries codes");
  expect_one_line_error(test::run_cli(fl + "--dequantize"),
                        "--dequantize: " + dir + "/m.onnx has no output that carries codes");
  EXPECT_FALSE(std::filesystem::exists(dir + "/f"));
}

// The ONNX backend node test the issue names, through the program: QuantizeLinear's uint8 codes
// and DequantizeLinear's floats as the test data expects them (scale and zero point made
// initializers, as a model carries them).
TEST(CliInfer, OnnxNodeTestsForQuantizeAndDequantize) {
  const std::string root = "/usr/share/libonnx-testdata/data/node";
  if (!std::filesystem::is_directory(root)) GTEST_SKIP() << root << " is absent (libonnx-testdata)";
  const std::string dir = test::temp_dir("infer_node_tests");
  for (const std::string name : {"test_quantizelinear", "test_dequantizelinear"}) {
    const std::string data = root + "/" + name + "/test_data_set_0/";
    Graph g = load_onnx(root + "/" + name + "/model.onnx");
    for (size_t i = 1; i < g.inputs.size(); ++i) {
      g.initializers[g.inputs[i].name] =
          parse_onnx_tensor(read_file(data + "input_" + std::to_string(i) + ".pb"));
    }
    g.inputs.resize(1);
    save_onnx(g, dir + "/" + name + ".onnx");
    save_npy(parse_onnx_tensor(read_file(data + "input_0.pb")), dir + "/" + name + ".npy");
    auto r = test::run_cli("infer --model " + dir + "/" + name + ".onnx --input " + dir + "/" +
                           name + ".npy --out " + dir + "/" + name);
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    const Tensor want = parse_onnx_tensor(read_file(data + "output_0.pb"));
    const Tensor got = load_npy(dir + "/" + name + "/" + g.outputs[0].name + ".npy");
    EXPECT_EQ(got.dtype(), want.dtype()) << name;
    EXPECT_EQ(got.shape(), want.shape()) << name;
    EXPECT_EQ(got.to_floats(), want.to_floats()) << name;
  }
}

}  // namespace
}  // namespace edgeq
