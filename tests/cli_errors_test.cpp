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
                        "unknown emulation 'avx3'");
  expect_one_line_error(test::run_cli("bench" + m + " --emulate avx2"), "needs --exec int8");
  expect_one_line_error(test::run_cli("compare --ref " + dir + "/m.onnx --test " + dir +
                                      "/m.onnx --images " + dir + " --emulate avx2"),
                        "needs --exec int8");
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

}  // namespace
}  // namespace edgeq
