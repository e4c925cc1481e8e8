// Quantized graph inputs and outputs (encode/quantize_io.h, runtime/float_io.h): pixel codes are
// exact; a --quantize-io both model declares uint8 in and uint16 out, records both encodings,
// runs in ONNX Runtime, and computes exactly its twin's outputs through those encodings (its float
// view: the twin's output fake-quantized; raw: the twin's output quantized); on the real model
// the program runs it like any model (run, compare, bench, infer --raw, doctor).
#include "encode/quantize_io.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "cli_util.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/npy.h"
#include "encode/encodings_json.h"
#include "encode/weight_encoding.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "quant/quantize_model.h"
#include "runtime/executor.h"
#include "runtime/float_io.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
using test::shell_quote;

TEST(QuantizeIo, EveryPixelIsItsOwnCode) {
  const Encoding e = image_code_encoding();
  EXPECT_EQ(e.dtype(), DType::kUInt8);
  EXPECT_EQ(e.zero_point(), 0);
  EXPECT_EQ(e.scale, 1.0f / 255.0f);
  std::vector<float> pixels(256);
  for (int p = 0; p < 256; ++p) pixels[p] = static_cast<float>(p) / 255.0f;  // as letterboxing
  const Tensor codes =
      quantize_tensor(Tensor::from_vector<float>({256}, pixels), TensorEncoding::per_tensor(e));
  ASSERT_EQ(codes.dtype(), DType::kUInt8);
  for (int p = 0; p < 256; ++p) EXPECT_EQ(codes.data<uint8_t>()[p], p) << p;
  EXPECT_THROW(parse<QuantizeIo>("inputs"), Error);
  EXPECT_EQ(parse<QuantizeIo>("both"), QuantizeIo::kBoth);
}

Tensor image_codes(const Tensor& x) {
  return quantize_tensor(x, TensorEncoding::per_tensor(image_code_encoding()));
}

// Letterboxed pixel values (p / 255) in [1,3,64,64], from a seed.
std::vector<Tensor> pixel_inputs(int n, unsigned seed) {
  std::vector<Tensor> xs;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pixel(0, 255);
  for (int k = 0; k < n; ++k) {
    std::vector<float> v(3 * 64 * 64);
    for (float& x : v) x = static_cast<float>(pixel(rng) / 4 * 4 + 2) / 255.0f;  // smooth-ish
    xs.push_back(Tensor::from_vector<float>({1, 3, 64, 64}, v));
  }
  return xs;
}

TEST(QuantizeIo, CodesCarryExactlyWhatTheTwinComputes) {
  const Graph g = build_yolo11("yolo11n-pose", 64);
  const std::vector<Tensor> xs = pixel_inputs(3, 30);
  const Stats stats = test::calibrate(g, "images", xs);
  const std::string dir = test::temp_dir("quantize_io");
  for (const char* scheme : {"w8a16", "w8a8"}) {
    SCOPED_TRACE(scheme);
    const QuantConfig c = config_for_scheme(parse<Scheme>(scheme));
    const QdqModel twin = quantize_model(g, plan_for_stats(g, stats, c), stats, c);
    QdqModel io = twin;
    quantize_io(io, QuantizeIo::kBoth, stats);
    ASSERT_EQ(io.graph.inputs.at(0).dtype, DType::kUInt8);
    ASSERT_EQ(io.graph.outputs.at(0).dtype, DType::kUInt16);
    const std::vector<CodedValue> coded = coded_io(io.graph);
    ASSERT_EQ(coded.size(), 2u);
    EXPECT_TRUE(coded[0].input && coded[0].name == "images");
    EXPECT_EQ(coded[0].encoding.scale, image_code_encoding().scale);
    const Encoding out = coded[1].encoding;
    EXPECT_EQ(out.bitwidth, 16);
    // The output's own range at 16 bit (min / max of the calibration).
    const Histogram& h = stats.at("output0");
    EXPECT_EQ(out.scale, encoding_from_range(h.min(), h.max(), 16, false, false).scale);

    // The encodings file lists both ends under io_encodings and reads them back.
    const std::string text = encodings_to_json(io.encodings);
    const EncodingSet back = encodings_from_json(text, "test");
    ASSERT_EQ(back.io.size(), 2u);
    EXPECT_EQ(back.io.at("output0").channels.at(0).scale, out.scale);
    EXPECT_EQ(back.io.at("output0").channels.at(0).zero_point(), out.zero_point());
    EXPECT_EQ(encodings_from_json(encodings_to_json(twin.encodings), "t").io.size(), 0u);
    EXPECT_EQ(text.find("io_encodings") != std::string::npos, true);
    EXPECT_EQ(encodings_to_json(twin.encodings).find("io_encodings"), std::string::npos);

    Executor twin_ex(twin.graph), view(io.graph);
    ExecutorOptions raw_opt;
    raw_opt.float_io = false;
    Executor raw(io.graph, raw_opt);
    const std::string path = dir + "/" + scheme + "-io.onnx";
    const std::string twin_path = dir + "/" + scheme + ".onnx";
    save_onnx(io.graph, path);
    save_onnx(twin.graph, twin_path);
    for (const Tensor& x : xs) {
      const Tensor y = twin_ex.run({{"images", x}}).at("output0");
      const Tensor v = view.run({{"images", x}}).at("output0");
      const Tensor codes_in = image_codes(x);
      const Tensor r = raw.run({{"images", codes_in}}).at("output0");
      ASSERT_EQ(r.dtype(), DType::kUInt16);
      const float* yv = y.data<float>();
      size_t view_diff = 0, raw_diff = 0;
      for (int64_t i = 0; i < y.numel(); ++i) {
        view_diff += v.data<float>()[i] != out.fake_quant(yv[i]);
        raw_diff += r.data<uint16_t>()[i] != out.quantize(yv[i]);
      }
      EXPECT_EQ(view_diff, 0u);
      EXPECT_EQ(raw_diff, 0u);

      // ONNX Runtime (the QDQ formula) runs the model on the codes and returns the codes of what
      // it computes for the twin on the floats.
      if (!test::ort_unavailable_reason().empty()) continue;
      const Tensor ort = test::run_ort(path, {{"images", codes_in}}).at("output0");
      const Tensor ort_twin = test::run_ort(twin_path, {{"images", x}}).at("output0");
      ASSERT_EQ(ort.dtype(), DType::kUInt16);
      ASSERT_EQ(ort.shape(), r.shape());
      size_t ort_diff = 0;
      for (int64_t i = 0; i < ort.numel(); ++i)
        ort_diff += ort.data<uint16_t>()[i] != out.quantize(ort_twin.data<float>()[i]);
      EXPECT_EQ(ort_diff, 0u);
    }
  }
}

TEST(QuantizeIoCli, RealModelRunsLikeItsFloatIoTwin) {
  EDGEQ_REQUIRE_REAL_DATA();
  const std::string dir = test::temp_dir("quantize_io_cli");
  const std::string m = shell_quote(test::real_model_path());
  const std::string images = shell_quote(test::coco8_pose_dir() + "/images");
  const std::string d = shell_quote(dir);
  auto r = test::run_cli("calibrate --model " + m + " --images " + images + "/train --out " + d +
                         "/s.cbor");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string base = "quantize --model " + m + " --stats " + d + "/s.cbor --scheme w8a8 ";
  r = test::run_cli(base + "--out " + d + "/twin.onnx");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli(base + "--quantize-io both --out " + d + "/io.onnx --encodings " + d +
                    "/io.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("quantized output output0: u16"), std::string::npos) << r.out;
  EXPECT_NE(read_file(dir + "/io.json").find("io_encodings"), std::string::npos);

  // The same detections as the twin on all 8 photos (compare matches at IoU 0.5).
  r = test::run_cli("compare --ref " + d + "/twin.onnx --test " + d + "/io.onnx --images " +
                    images + " --json " + d + "/cmp.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json cmp = parse_json_text(read_file(dir + "/cmp.json"));
  const auto& det = cmp.at("detections");
  const double ref = det.at("ref").get<double>(), matched = det.at("matched").get<double>();
  ASSERT_GT(ref, 0);
  EXPECT_GE(matched / ref, 0.99) << det.dump();

  // bench: a quarter of the input bytes per frame (uint8 instead of float).
  for (const char* which : {"twin", "io"}) {
    r = test::run_cli("bench --model " + d + "/" + which + ".onnx --runs 1 --warmup 0 --json " + d +
                      "/" + which + "-bench.json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(parse_json_text(read_file(dir + "/twin-bench.json"))["input_bytes_per_frame"], 4915200);
  const nlohmann::json b = parse_json_text(read_file(dir + "/io-bench.json"));
  EXPECT_EQ(b["input_bytes_per_frame"], 1228800);
  EXPECT_EQ(b["output_bytes_per_frame"], 56 * 8400 * 2);

  // infer --raw writes the codes; the doctor names both ends and the scores' step.
  const std::string photo = test::coco8_pose_dir() + "/images/val/000000000110.jpg";
  r = test::run_cli("infer --model " + d + "/io.onnx --image " + shell_quote(photo) +
                    " --raw --out " + d + "/raw");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(load_npy(dir + "/raw/output0.npy").dtype(), DType::kUInt16);
  r = test::run_cli("doctor --model " + d + "/io.onnx --target qnn-htp --json " + d + "/doc.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = parse_json_text(read_file(dir + "/doc.json"));
  int io_findings = 0;
  for (const auto& f : doc.at("findings")) {
    if (f.at("kind") == "io") ++io_findings;
    EXPECT_NE(f.at("kind"), "float-io") << f.dump();
  }
  EXPECT_EQ(io_findings, 2);

  // ONNX Runtime runs it on a photo's codes, as the QDQ formula and with its own int8 kernels.
  EDGEQ_REQUIRE_ORT();
  const Tensor x = preprocess_image(read_image(photo), 640, 640, nullptr);
  const Tensor codes = image_codes(x);
  r = test::run_cli("quantize --model " + m + " --stats " + d + "/s.cbor --scheme w8a16 " +
                    "--quantize-io both --out " + d + "/io16.onnx");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* file : {"io.onnx", "io16.onnx"})
    for (auto how : {test::OrtGraph::kFormula, test::OrtGraph::kOrtKernels}) {
      const Tensor y = test::run_ort(dir + "/" + file, {{"images", codes}}, how).at("output0");
      EXPECT_EQ(y.dtype(), DType::kUInt16) << file;
      EXPECT_EQ(y.shape(), (Shape{1, 56, 8400})) << file;
    }
}

}  // namespace
}  // namespace edgeq
