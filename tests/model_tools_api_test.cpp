// The model tools and raw runs through the public API only (edgeq/model_tools.h, edgeq/infer.h,
// edgeq/machine.h, detect.h's drawing names): the same bytes as the program for the same request,
// and refusals that name what is wrong. Zoo models at imgsz 160 keep it fast.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "edgeq/edgeq.h"
#include "test_util.h"

namespace edgeq {
namespace {
using test::shell_quote;

std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::string val_image() {
  return test::coco8_pose_dir() + "/images/val/000000000113.jpg";
}

// A zoo pose model at imgsz 160, written once per test process.
struct ToolsFixture {
  std::string dir, zoo;
};

const ToolsFixture& fixture() {
  static const ToolsFixture f = [] {
    ToolsFixture f;
    f.dir = test::temp_dir("model_tools_api");
    f.zoo = f.dir + "/pose160.onnx";
    save_model(zoo_model("yolo11n-pose", 160).model, f.zoo);
    return f;
  }();
  return f;
}

// Its QDQ model with uint8 image codes in and uint16 codes out, quantized from one photo.
const std::string& qdq_model() {
  static const std::string path = [] {
    const ToolsFixture& f = fixture();
    const Model m = Model::load(f.zoo);
    CalibrateOptions co;
    co.n = 1;
    const Calibration cal = calibrate(m, ImageSource::from_path(val_image()), co);
    QuantizeOptions qo;
    qo.quantize_io = QuantizeIo::kBoth;
    quantize(m, cal.stats, qo).save(f.dir + "/q.onnx");
    return f.dir + "/q.onnx";
  }();
  return path;
}

TEST(ModelTools, ZooModelIsWhatTheProgramWrites) {
  const ToolsFixture& f = fixture();
  const std::vector<std::string> names = zoo_model_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "yolo11n-pose"), names.end());
  const ZooModel z = zoo_model("yolo11n-pose", 160);
  EXPECT_GT(z.parameters, 0);
  EXPECT_GT(node_count(z.model), 100u);
  ASSERT_EQ(z.model.inputs().size(), 1u);
  EXPECT_EQ(shape_text(z.model.inputs()[0].shape), "[1,3,160,160]");
  const std::string out = f.dir + "/cli_zoo.onnx";
  const test::CliResult r = test::run_cli("zoo yolo11n-pose --imgsz 160 -o " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_bytes(out), z.model.bytes());
  EXPECT_EQ(file_bytes(f.zoo), z.model.bytes());
  const std::string err = test::error_of([] { zoo_model("yolo12x", 160); });
  EXPECT_NE(err.find("yolo11n-pose"), std::string::npos) << err;
}

TEST(ModelTools, CutArmIsWhatTheProgramWrites) {
  const ToolsFixture& f = fixture();
  EXPECT_EQ(parse<Arm>("b"), Arm::kB);
  EXPECT_EQ(name(Arm::kB), "B");
  EXPECT_EQ(test::error_of([] { parse<Arm>("D"); }), "arm: 'D' is not one of A, B, C, head");
  const Model m = Model::load(f.zoo);
  CutOptions o;
  o.arm = Arm::kA;
  const Model arm = cut_model(m, o);
  EXPECT_LT(node_count(arm), node_count(m));
  // Arm A: the default taps 4, 6, 8, 10, each pooled by average and max to [1,C,1,1].
  const std::vector<ValueDescription> outs = arm.outputs();
  ASSERT_EQ(outs.size(), 8u);
  for (const ValueDescription& v : outs) {
    EXPECT_EQ(v.name.rfind("tap_", 0), 0u) << v.name;
    ASSERT_EQ(v.shape.size(), 4u);
    EXPECT_EQ(v.shape[2] * v.shape[3], 1);
  }
  const std::string out = f.dir + "/cli_arm.onnx";
  const test::CliResult r =
      test::run_cli("cut --model " + shell_quote(f.zoo) + " --arm a --out " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_bytes(out), arm.bytes());
  o.arm = Arm::kC;
  o.taps = {99};
  o.taps_given = true;
  EXPECT_FALSE(test::error_of([&] { cut_model(m, o); }).empty());
}

TEST(ModelTools, PatchIsWhatTheProgramWrites) {
  const ToolsFixture& f = fixture();
  const Model q = Model::load(qdq_model());
  PatchOptions o;
  o.values = {"/model.0/act/Mul_output_0"};
  o.lo = -0.5;
  o.hi = 8;
  const PatchedModel p = patch_activations(q, o);
  ASSERT_FALSE(p.patched.empty());
  EXPECT_EQ(p.patched[0], o.values[0]);
  EXPECT_FALSE(p.encoding.empty());
  EXPECT_NE(p.model.bytes(), q.bytes());
  const std::string out = f.dir + "/cli_patch.onnx";
  const test::CliResult r =
      test::run_cli("patch --model " + shell_quote(qdq_model()) +
                    " --tensor /model.0/act/Mul_output_0 --range -0.5 8 --out " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_bytes(out), p.model.bytes());
  o.values = {"nope"};
  EXPECT_NE(test::error_of([&] { patch_activations(q, o); }).find("'nope'"), std::string::npos);
}

TEST(ModelTools, SummaryJsonIsWhatInspectWrites) {
  const ToolsFixture& f = fixture();
  const Model m = Model::load(f.zoo);
  const std::string j = model_summary_json(m);
  EXPECT_EQ(nlohmann::json::parse(j).at("model"), f.zoo);
  const std::string out = f.dir + "/inspect.json";
  const test::CliResult r =
      test::run_cli("inspect --model " + shell_quote(f.zoo) + " --json " + shell_quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_bytes(out), j + "\n");
  EXPECT_EQ(r.out, "model   " + f.zoo + "\n" + m.summary());
}

TEST(Infer, TensorsRoundTripThroughNpy) {
  const std::string dir = test::temp_dir("raw_tensor_npy");
  const RawTensor t = RawTensor::from_floats("x", {2, 3}, {1, 2, 3, 4, 5, 6.5f});
  EXPECT_EQ(t.bytes.size(), 24u);
  EXPECT_THROW(RawTensor::from_floats("x", {2, 2}, {1, 2, 3}), Error);
  write_npy(t, dir + "/t.npy");
  const RawTensor back = read_npy(dir + "/t.npy");
  EXPECT_EQ(back.dtype, "float32");
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.floats(), t.floats());
  EXPECT_EQ(output_npy_path("out", "a/b:c\\d"), "out/a_b_c_d.npy");
}

TEST(Infer, RawRunWritesWhatTheProgramWrites) {
  const ToolsFixture& f = fixture();
  const Model m = Model::load(f.zoo);
  EXPECT_TRUE(coded_io(m).empty());
  const RawTensor x = letterboxed_input(m, val_image());
  EXPECT_EQ(x.name, "images");
  EXPECT_EQ(x.shape, (std::vector<int64_t>{1, 3, 160, 160}));
  const std::vector<RawTensor> outs = infer(m, {x});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].dtype, "float32");
  InferOptions deq;
  deq.dequantize = true;
  EXPECT_NE(test::error_of([&] { infer(m, {x}, deq); }).find("no output that carries codes"),
            std::string::npos);

  // The quantized-I/O model: uint8 image codes in (the float image quantized), uint16 codes out,
  // or floats with dequantize.
  const Model q = Model::load(qdq_model());
  const std::vector<CodedIo> coded = coded_io(q);
  ASSERT_EQ(coded.size(), 2u);
  const RawTensor qx = letterboxed_input(q, val_image());
  const std::vector<RawTensor> codes = infer(q, {qx});
  ASSERT_EQ(codes.size(), 1u);
  EXPECT_EQ(codes[0].dtype, "uint16");
  const std::vector<RawTensor> floats = infer(q, {qx}, deq);
  EXPECT_EQ(floats[0].dtype, "float32");
  EXPECT_EQ(floats[0].shape, codes[0].shape);

  const std::string dir = f.dir + "/infer_cli";
  const test::CliResult r =
      test::run_cli("infer --model " + shell_quote(qdq_model()) + " --image " +
                    shell_quote(val_image()) + " --out " + shell_quote(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string path = output_npy_path(dir, codes[0].name);
  EXPECT_EQ(read_npy(path).bytes, codes[0].bytes);
  write_npy(codes[0], f.dir + "/codes.npy");
  EXPECT_EQ(file_bytes(f.dir + "/codes.npy"), file_bytes(path));
}

TEST(Machine, SimdLevel) {
  const std::string level = simd_in_use();
  EXPECT_TRUE(level == "avx512" || level == "avx2" || level == "scalar") << level;
}

TEST(Detect, DrawingNames) {
  const std::string folder = test::coco8_pose_dir() + "/images/val";
  EXPECT_TRUE(drawings_go_to_folder(folder, "drawn"));
  EXPECT_FALSE(drawings_go_to_folder(val_image(), "drawn.jpg"));
  EXPECT_TRUE(drawings_go_to_folder(val_image(), "drawn"));
  EXPECT_TRUE(is_drawing_name(folder, "000000000113.jpg"));
  EXPECT_FALSE(is_drawing_name(folder, "notes.txt"));
}

}  // namespace
}  // namespace edgeq
