// The raw head (cut arm head, ir/raw_head.h) and its host decode (runtime/host_decode.h): found by
// structure on detect and pose models; the decode gives the full model's output0 (edgeq on zoo
// models, ONNX Runtime's full model on the real one: every detection matched, boxes and keypoints
// within 0.01 px); every run of such a model sees output0 (compare, bench, Session); quantized, it
// has no op outside Q/DQ and runs in ORT; damaged input is refused in one line.
#include "ir/raw_head.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "cli_util.h"
#include "core/npy.h"
#include "edgeq/edgeq.h"
#include "graph_builders.h"
#include "ir/cut.h"
#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "runtime/host_decode.h"
#include "test_util.h"
#include "vision/augment.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"
#include "vision/postprocess.h"
#include "vision/yolo_layout.h"
#include "zoo/yolo11.h"

namespace edgeq {
namespace {
namespace fs = std::filesystem;
using test::shell_quote;

// ONNX Runtime's name for an output ('/', '\\' and ':' as '_'), as the oracle returns it.
std::string ort_key(std::string name) {
  for (char& c : name)
    if (c == '/' || c == '\\' || c == ':') c = '_';
  return name;
}

Graph raw_head_of(const Graph& full) {
  CutSpec spec;
  spec.arm = Arm::kHead;
  return cut_model(full, spec);
}

Tensor random_input(int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::vector<float> v(3 * size * size);
  for (float& x : v) x = u(rng);
  return Tensor::from_vector<float>({1, 3, size, size}, v);
}

// Detections of `ref` and `test` matched one to one (same class, best IoU); the largest box-corner
// and keypoint differences in pixels.
struct DetectionGap {
  size_t ref = 0, test = 0, matched = 0;
  double box_px = 0, kpt_px = 0;
};
DetectionGap gap(const std::vector<Detection>& ref, const std::vector<Detection>& test) {
  DetectionGap g{ref.size(), test.size(), 0, 0, 0};
  std::vector<bool> used(test.size(), false);
  for (const Detection& r : ref) {
    int best = -1;
    float best_iou = 0.5f;
    for (size_t j = 0; j < test.size(); ++j) {
      const float iou = box_iou(r.xyxy(), test[j].xyxy());
      if (!used[j] && test[j].cls == r.cls && iou >= best_iou)
        best = static_cast<int>(j), best_iou = iou;
    }
    if (best < 0) continue;
    used[best] = true;
    ++g.matched;
    const Detection& t = test[best];
    for (int k = 0; k < 4; ++k)
      g.box_px = std::max(g.box_px, double(std::fabs(r.box[k] - t.box[k])));
    for (size_t k = 0; k < r.kpts.size() && k < t.kpts.size(); ++k)
      g.kpt_px = std::max({g.kpt_px, double(std::fabs(r.kpts[k].x - t.kpts[k].x)),
                           double(std::fabs(r.kpts[k].y - t.kpts[k].y))});
  }
  return g;
}

TEST(RawHead, FoundByStructureOnDetectAndPose) {
  for (const std::string name : {"yolo11n", "yolo11n-pose"}) {
    SCOPED_TRACE(name);
    const Graph full = build_yolo11(name, 160);
    const Graph raw = raw_head_of(full);
    const auto layout = raw_head_layout(raw);
    ASSERT_TRUE(layout.has_value());
    const bool pose = name == "yolo11n-pose";
    ASSERT_EQ(raw.outputs.size(), pose ? 9u : 6u);
    EXPECT_EQ(layout->reg_max, 16);
    EXPECT_EQ(layout->num_classes, pose ? 1 : 80);
    EXPECT_EQ(layout->num_keypoints, pose ? 17 : 0);
    EXPECT_EQ(layout->keypoint_dims, pose ? 3 : 0);
    EXPECT_EQ(layout->decoded_info().shape, full.outputs[0].shape);
    const int strides[] = {8, 16, 32};
    const int64_t channels[] = {64, pose ? 1 : 80, 51};
    const size_t per_scale = pose ? 3 : 2;
    for (size_t i = 0; i < raw.outputs.size(); ++i) {
      const int s = strides[i / per_scale];
      const int64_t hw = 160 / s;
      EXPECT_EQ(raw.outputs[i].shape, (Shape{1, channels[i % per_scale], hw, hw}))
          << raw.outputs[i].name;
      EXPECT_EQ(layout->outputs[i].stride, s);
      // Each output is a convolution's: the graph ends at the head's last convolutions.
      const int p = raw.producer_of(raw.outputs[i].name);
      ASSERT_GE(p, 0);
      EXPECT_EQ(raw.nodes[p].op_type, "Conv");
    }
    // The DFL's Softmax is gone (the attention block's stays).
    auto softmaxes = [](const Graph& g) {
      return std::count_if(g.nodes.begin(), g.nodes.end(),
                           [](const Node& n) { return n.op_type == "Softmax"; });
    };
    EXPECT_EQ(softmaxes(raw), softmaxes(full) - 1);
    // The metadata reads back as written.
    EXPECT_EQ(raw_head_json(*layout), *raw.metadata_value(kRawHeadKey));
  }
}

TEST(RawHead, HostDecodeGivesTheFullModelsOutput) {
  for (const std::string name : {"yolo11n", "yolo11n-pose"}) {
    SCOPED_TRACE(name);
    const Graph full = build_yolo11(name, 160);
    Executor full_ex(full);
    Executor raw_ex(raw_head_of(full));
    ASSERT_NE(raw_ex.raw_head(), nullptr);
    for (uint32_t seed : {1u, 2u}) {
      const Tensor x = random_input(160, seed);
      const Tensor want = full_ex.run({{"images", x}}).at("output0");
      const auto got = raw_ex.run({{"images", x}});
      ASSERT_TRUE(got.count("output0"));
      EXPECT_EQ(got.size(), raw_ex.graph().outputs.size() + 1);  // the raw outputs and output0
      EXPECT_LE(test::max_abs_diff(got.at("output0"), want), 2e-3);
    }
    // The same bytes for any thread count (the decode shares the executor's threads).
    ExecutorOptions one, two;
    one.threads = 1, two.threads = 2;
    Executor ex1(raw_head_of(full), one), ex2(raw_head_of(full), two);
    const Tensor x = random_input(160, 4);
    const Tensor y1 = ex1.run({{"images", x}}).at("output0");
    const Tensor y2 = ex2.run({{"images", x}}).at("output0");
    EXPECT_EQ(std::memcmp(y1.raw(), y2.raw(), y1.nbytes()), 0);
    // No host decode when asked for none (the raw outputs alone).
    ExecutorOptions off;
    off.host_decode = false;
    Executor plain(raw_head_of(full), off);
    EXPECT_EQ(plain.run({{"images", random_input(160, 3)}}).count("output0"), 0u);
  }
}

// Acceptance: FP32 raw head + host decode against the full FP32 model run by ONNX Runtime, on the
// 8 photos and 32 variants of them: every detection matched, boxes and keypoints within 0.01 px.
TEST(RawHeadReal, DetectionsEqualOrtsFullModelOnPhotosAndVariants) {
  EDGEQ_REQUIRE_REAL_DATA();
  EDGEQ_REQUIRE_ORT();
  const Graph full = load_onnx(test::real_model_path());
  Executor raw_ex(raw_head_of(full));
  std::vector<LabelledImage> photos;
  for (const char* split : {"train", "val"})
    for (const auto& p : list_images(test::coco8_pose_dir() + "/images/" + split))
      photos.push_back({read_image(p), {}});
  ASSERT_EQ(photos.size(), 8u);
  std::vector<cv::Mat> images;
  for (const auto& p : photos) images.push_back(p.bgr);
  std::mt19937_64 rng(7);
  const AugmentKind kinds[] = {AugmentKind::kFlip, AugmentKind::kScale, AugmentKind::kCrop,
                               AugmentKind::kMosaic};
  for (int i = 0; i < 32; ++i) images.push_back(augment_image(photos, kinds[i % 4], rng).bgr);

  std::vector<std::map<std::string, Tensor>> runs;
  std::vector<LetterboxInfo> boxes(images.size());
  for (size_t i = 0; i < images.size(); ++i)
    runs.push_back({{"images", preprocess_image(images[i], 640, 640, &boxes[i])}});
  const auto ort = test::run_ort_many(test::real_model_path(), runs);
  ASSERT_EQ(ort.size(), images.size());
  const YoloLayout layout = yolo_layout_for(full, full.outputs[0].shape);
  size_t total = 0;
  for (size_t i = 0; i < images.size(); ++i) {
    SCOPED_TRACE("image " + std::to_string(i));
    const auto ours = raw_ex.run(runs[i]);
    const auto ref = postprocess(ort[i].at("output0"), boxes[i], {}, layout);
    const auto test = postprocess(ours.at("output0"), boxes[i], {}, layout);
    const DetectionGap g = gap(ref, test);
    EXPECT_EQ(g.ref, g.test);
    EXPECT_EQ(g.matched, g.ref);
    EXPECT_LT(g.box_px, 0.01);
    EXPECT_LT(g.kpt_px, 0.01);
    total += g.matched;
  }
  EXPECT_GT(total, 40u);  // the photos have people in them: the check saw detections
}

// The quantized raw head of the real model (W8A8 with 8-bit and 16-bit outputs, W8A16): no op
// outside Q/DQ for the NPU targets' doctor; ONNX Runtime (the QDQ formula) loads and runs it, and
// its raw outputs, decoded on the host, give edgeq's detections. W8A16 agrees to a hundredth of a
// pixel. Under W8A8 the two runtimes' float sums differ in the last bits, a value near a rounding
// boundary takes the next 8-bit code in one of them and the step travels on through the layers:
// on these photos the full W8A8 model (decode tail at 16 bit) differed from ORT by up to 2.3 px in
// its boxes and 12 px in its keypoints (measured with compare --test-outputs on ORT's dumps), the
// raw head as much; the detections stay the same.
TEST(RawHeadReal, QuantizedHasNoFloatTailAndRunsInOrt) {
  EDGEQ_REQUIRE_REAL_DATA();
  const std::string dir = test::temp_dir("raw_head_q");
  const Model raw =
      cut_model(Model::load(test::real_model_path()), CutOptions{Arm::kHead, {}, false});
  CalibrateOptions co;
  co.n = 2;
  const Calibration cal =
      calibrate(raw, ImageSource::from_path(test::coco8_pose_dir() + "/images/train"), co);
  const auto photo = list_images(test::coco8_pose_dir() + "/images/val").at(1);
  LetterboxInfo lb;
  const Tensor x = preprocess_image(read_image(photo), 640, 640, &lb);
  struct Variant {
    Scheme scheme;
    std::vector<std::string> a16;
  };
  for (const Variant& v : {Variant{Scheme::kW8A8, {}}, Variant{Scheme::kW8A8, {"outputs"}},
                           Variant{Scheme::kW8A16, {}}}) {
    SCOPED_TRACE(std::string(name(v.scheme)) + (v.a16.empty() ? "" : " a16 outputs"));
    QuantizeOptions o;
    o.scheme = v.scheme;
    o.a16 = v.a16;
    const QuantizedModel q = quantize(raw, cal.stats, o);
    EXPECT_EQ(q.summary().activations_16bit >= 9, v.scheme == Scheme::kW8A16 || !v.a16.empty());
    for (const char* target : {"qnn-htp", "rknn"}) {
      DoctorOptions d;
      d.target = target;
      for (const auto& f : doctor(Model::from_bytes(q.bytes(), "q"), d).findings)
        EXPECT_TRUE(f.kind != "float-tail" && f.kind != "float-op")
            << target << ": " << f.kind << " " << f.message;
    }
    const std::string path = dir + "/q.onnx";
    q.save(path);
    const Graph g = load_onnx(path);
    const auto layout = raw_head_layout(g);
    ASSERT_TRUE(layout.has_value());  // the layout survives quantization
    Executor ex(g);
    const auto ours = ex.run({{"images", x}});
    EDGEQ_REQUIRE_ORT();
    const auto ort = test::run_ort(path, {{"images", x}});
    std::map<std::string, Tensor> ort_raw;
    for (const auto& o : g.outputs) {
      ASSERT_TRUE(ort.count(ort_key(o.name))) << o.name;
      ort_raw[o.name] = ort.at(ort_key(o.name));
    }
    const YoloLayout yl = yolo_layout_for(g, layout->decoded_info().shape);
    const auto ref = postprocess(decode_raw_head(*layout, ort_raw), lb, {}, yl);
    const auto test = postprocess(ours.at("output0"), lb, {}, yl);
    const DetectionGap gp = gap(ref, test);
    std::printf("ORT vs edgeq: %zu / %zu detections, %zu matched, box %.4f px, keypoints %.4f px\n",
                gp.ref, gp.test, gp.matched, gp.box_px, gp.kpt_px);
    EXPECT_GT(gp.ref, 0u);
    EXPECT_EQ(gp.matched, gp.ref);
    EXPECT_EQ(gp.matched, gp.test);
    const bool w8a16 = v.scheme == Scheme::kW8A16;
    EXPECT_LT(gp.box_px, w8a16 ? 0.05 : 4.0);
    EXPECT_LT(gp.kpt_px, w8a16 ? 0.05 : 16.0);
  }
}

// A detect model's raw head (the zoo's yolo11n, synthetic weights): quantized W8A8, no float op
// for the NPU doctors, and ONNX Runtime runs it with the outputs the layout names.
TEST(RawHead, QuantizedDetectHeadRunsInOrt) {
  EDGEQ_REQUIRE_REAL_DATA();  // the photos calibrate it
  const std::string dir = test::temp_dir("raw_head_detect");
  const Model raw = Model::from_bytes(serialize_onnx(raw_head_of(build_yolo11("yolo11n", 160))),
                                      "zoo detect raw head");
  CalibrateOptions co;
  co.n = 1;
  const Calibration cal =
      calibrate(raw, ImageSource::from_path(test::coco8_pose_dir() + "/images/train"), co);
  const QuantizedModel q = quantize(raw, cal.stats, QuantizeOptions{});
  for (const char* target : {"qnn-htp", "rknn"}) {
    DoctorOptions d;
    d.target = target;
    for (const auto& f : doctor(Model::from_bytes(q.bytes(), "q"), d).findings)
      EXPECT_TRUE(f.kind != "float-tail" && f.kind != "float-op") << target << ": " << f.message;
  }
  q.save(dir + "/q.onnx");
  const Graph g = load_onnx(dir + "/q.onnx");
  ASSERT_EQ(g.outputs.size(), 6u);
  const Tensor x = random_input(160, 5);
  const auto ours = Executor(g).run({{"images", x}});
  EXPECT_EQ(ours.at("output0").shape(), (Shape{1, 84, 525}));
  EDGEQ_REQUIRE_ORT();
  const auto ort = test::run_ort(dir + "/q.onnx", {{"images", x}});
  for (const auto& o : g.outputs) {
    ASSERT_TRUE(ort.count(ort_key(o.name))) << o.name;
    EXPECT_EQ(ort.at(ort_key(o.name)).shape(), ours.at(o.name).shape()) << o.name;
  }
}

// A quantized input (quantize_io in): the tensor a board is fed is the letterboxed image's uint8
// codes, pixel p as code p (scale 1/255); a float input is fed as it is.
TEST(RawHeadReal, BoardInputIsTheCodesOfACodedInput) {
  EDGEQ_REQUIRE_REAL_DATA();
  const Model raw =
      cut_model(Model::load(test::real_model_path()), CutOptions{Arm::kHead, {}, false});
  CalibrateOptions co;
  co.n = 1;
  const Calibration cal =
      calibrate(raw, ImageSource::from_path(test::coco8_pose_dir() + "/images/train"), co);
  QuantizeOptions o;
  o.quantize_io = QuantizeIo::kIn;
  const Model q = Model::from_bytes(quantize(raw, cal.stats, o).bytes(), "coded");
  const auto photo = list_images(test::coco8_pose_dir() + "/images/val").at(0);
  const RawTensor x = letterboxed_input(q, photo);
  const RawTensor fed = model_input(q, x);
  ASSERT_EQ(fed.dtype, "uint8");
  ASSERT_EQ(fed.shape, x.shape);
  const std::vector<float> f = x.floats();
  size_t off = 0;
  for (size_t i = 0; i < f.size(); ++i)
    off += fed.bytes[i] != static_cast<uint8_t>(std::lround(f[i] * 255));
  EXPECT_EQ(off, 0u);
  EXPECT_EQ(model_input(raw, x).bytes, x.bytes);  // float input: as given
}

TEST(RawHead, RefusesModelsWithoutAHeadAndQuantizedOnes) {
  Graph tiny;
  tiny.name = "tiny";
  tiny.inputs.push_back({"x", DType::kFloat32, {1, 3, 8, 8}});
  tiny.nodes.push_back(test::node("relu", "Relu", {"x"}, {"y"}));
  tiny.outputs.push_back({"y", DType::kFloat32, {1, 3, 8, 8}});
  EXPECT_NE(test::error_of([&] { raw_head_of(tiny); }).find("no YOLO head output"),
            std::string::npos);

  Graph no_dfl = build_yolo11("yolo11n", 160);
  for (Node& n : no_dfl.nodes)
    if (n.op_type == "Softmax") n.op_type = "Sigmoid";
  EXPECT_NE(test::error_of([&] { raw_head_of(no_dfl); }).find("has no DFL"), std::string::npos)
      << test::error_of([&] { raw_head_of(no_dfl); });

  Graph qdq = build_yolo11("yolo11n", 160);
  qdq.nodes.push_back(test::node("q", "QuantizeLinear", {"images", "s"}, {"qx"}));
  EXPECT_NE(test::error_of([&] { raw_head_of(qdq); }).find("is quantized"), std::string::npos);

  CutSpec taps;
  taps.arm = Arm::kHead;
  taps.taps = {4};
  EXPECT_NE(
      test::error_of([&] { cut_model(build_yolo11("yolo11n", 160), taps); }).find("takes no taps"),
      std::string::npos);
}

TEST(RawHead, DamagedMetadataIsRefusedInOneLine) {
  const Graph good = raw_head_of(build_yolo11("yolo11n", 160));
  auto with_meta = [&](const std::function<void(std::string&)>& edit) {
    Graph g = good;
    for (auto& [k, v] : g.metadata)
      if (k == kRawHeadKey) edit(v);
    return test::error_of([&] { Executor ex(g); });
  };
  const std::string prefix = "raw-head metadata (edgeq_raw_head) of model";
  const std::string cut = with_meta([](std::string& v) { v = v.substr(0, v.size() / 2); });
  EXPECT_EQ(cut.rfind(prefix, 0), 0u) << cut;
  EXPECT_EQ(cut.find('\n'), std::string::npos) << cut;
  const std::string missing = with_meta([&](std::string& v) {
    const std::string n = good.outputs[0].name;
    v.replace(v.find(n), n.size(), "nothing");
  });
  EXPECT_NE(missing.find("names output 'nothing', which the model does not have"),
            std::string::npos)
      << missing;
  const std::string classes = with_meta(
      [](std::string& v) { v.replace(v.find("\"num_classes\":80"), 16, "\"num_classes\":8"); });
  EXPECT_NE(classes.find("its class part needs [1,8,20,20]"), std::string::npos) << classes;
  // Numbers that are not small integers are refused, never cast.
  const std::string huge = with_meta(
      [](std::string& v) { v.replace(v.find("\"reg_max\":16"), 12, "\"reg_max\":1e30"); });
  EXPECT_NE(huge.find("reg_max is not an integer: 1e+30"), std::string::npos) << huge;
  const std::string big = with_meta(
      [](std::string& v) { v.replace(v.find("\"reg_max\":16"), 12, "\"reg_max\":99999999999"); });
  EXPECT_NE(big.find("reg_max 99999999999 is outside [1, 64]"), std::string::npos) << big;
  // Outputs of the wrong shape handed to the decode.
  const RawHeadLayout layout = *raw_head_layout(good);
  std::map<std::string, Tensor> outs;
  for (const auto& o : good.outputs) outs[o.name] = Tensor(DType::kFloat32, {1, 2, 3, 4});
  EXPECT_NE(test::error_of([&] { decode_raw_head(layout, outs); }).find("host decode: output '"),
            std::string::npos);
}

// The program: cut writes the raw head; compare judges it against the full model (output0 from
// the host decode) and reads a board's raw output dumps; bench reports the decode apart; nothing
// is written for a model without a head or with damaged metadata.
TEST(RawHeadCli, CutCompareBenchAndRefusals) {
  const std::string dir = test::temp_dir("raw_head_cli");
  const std::string full = dir + "/full.onnx", raw = dir + "/raw.onnx";
  const std::string photos = test::coco8_pose_dir() + "/images/val";
  ASSERT_EQ(test::run_cli("zoo yolo11n-pose --imgsz 160 -o " + shell_quote(full)).exit_code, 0);
  auto c =
      test::run_cli("cut --model " + shell_quote(full) + " --arm head --out " + shell_quote(raw));
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("arm head"), std::string::npos) << c.out;

  auto cmp = test::run_cli("compare --ref " + shell_quote(full) + " --test " + shell_quote(raw) +
                           " --images " + shell_quote(photos) + " --quiet --json " +
                           shell_quote(dir + "/c.json"));
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/c.json"));
  ASSERT_EQ(j["tensors"].size(), 1u) << j["tensors"].dump();
  EXPECT_EQ(j["tensors"][0]["name"], "output0");
  EXPECT_LE(j["tensors"][0]["max_abs"].template get<double>(), 2e-3);

  // A board's dumps: the raw outputs of each image as .npy, decoded on the host by compare.
  const Graph g = load_onnx(raw);
  Executor ex(g);
  const auto images = list_images(photos);
  // The dump of output `output` for image i, where compare --test-outputs looks for it.
  auto dump_path = [&](size_t i, const std::string& output) {
    return output_npy_path(dir + "/dumps/" + std::to_string(i), output);
  };
  for (size_t i = 0; i < images.size(); ++i) {
    const auto out =
        ex.run({{"images", preprocess_image(read_image(images[i]), 160, 160, nullptr)}});
    fs::create_directories(dir + "/dumps/" + std::to_string(i));
    for (const auto& o : g.outputs) save_npy(out.at(o.name), dump_path(i, o.name));
  }
  auto board = test::run_cli("compare --ref " + shell_quote(full) + " --test " + shell_quote(raw) +
                             " --images " + shell_quote(photos) + " --test-outputs " +
                             shell_quote(dir + "/dumps") + " --quiet --json " +
                             shell_quote(dir + "/b.json"));
  ASSERT_EQ(board.exit_code, 0) << board.err;
  const auto b = nlohmann::json::parse(std::ifstream(dir + "/b.json"));
  EXPECT_EQ(b["detections"]["matched"], b["detections"]["ref"]);
  // The board check: against the FP32 raw head every raw output is compared channel by channel;
  // the board's dumps agree (none diverges) until one block of channels is rescaled in them.
  const std::string kpt = g.outputs[2].name;  // keypoints at stride 8: [1,51,20,20]
  for (size_t i = 0; i < images.size(); ++i) {
    Tensor t = load_npy(dump_path(i, kpt));
    float* v = t.data<float>();
    for (int64_t c = 5; c <= 9; ++c)
      for (int64_t k = 0; k < 400; ++k) v[c * 400 + k] = 3 * v[c * 400 + k] + 1;
    save_npy(t, dump_path(i, kpt));
  }
  auto channels = test::run_cli("compare --ref " + shell_quote(raw) + " --test " +
                                shell_quote(raw) + " --images " + shell_quote(photos) +
                                " --test-outputs " + shell_quote(dir + "/dumps") +
                                " --quiet --json " + shell_quote(dir + "/ch.json"));
  ASSERT_EQ(channels.exit_code, 0) << channels.err;
  EXPECT_NE(channels.out.find("first diverging block: channels 5-9"), std::string::npos)
      << channels.out;
  const auto ch = nlohmann::json::parse(std::ifstream(dir + "/ch.json"));
  ASSERT_EQ(ch["tensors"].size(), g.outputs.size() + 1);  // the raw outputs and output0
  for (const auto& e : ch["tensors"]) {
    ASSERT_TRUE(e.contains("channels")) << e["name"];
    EXPECT_EQ(e["channels"].size(), e["shape"][1]) << e["name"];
    if (e["name"] == kpt)
      EXPECT_EQ(e["diverging_channels"], nlohmann::json::array({5, 9}));
    else if (e["name"] == "output0")  // keypoints 1-3 (x, y, v of 1 and 2) sit in rows 5 + 5..9
      EXPECT_FALSE(e["diverging_channels"].is_null());
    else
      EXPECT_TRUE(e["diverging_channels"].is_null()) << e["name"] << " " << e["diverging_channels"];
  }

  // A dump of the wrong shape: one line naming the file.
  save_npy(Tensor(DType::kFloat32, {1, 2}), dump_path(0, g.outputs[0].name));
  test::expect_refusal(
      test::run_cli("compare --ref " + shell_quote(full) + " --test " + shell_quote(raw) +
                    " --images " + shell_quote(photos) + " --test-outputs " +
                    shell_quote(dir + "/dumps") + " --json " + shell_quote(dir + "/bad.json")),
      "is float32 [1,2]", dir + "/bad.json");

  // infer --save-input: the input a board is fed (here float), beside the raw outputs.
  auto inf =
      test::run_cli("infer --model " + shell_quote(raw) + " --image " + shell_quote(images.at(0)) +
                    " --save-input --out " + shell_quote(dir + "/inf"));
  ASSERT_EQ(inf.exit_code, 0) << inf.err;
  const Tensor fed = load_npy(dir + "/inf/images.npy");
  EXPECT_EQ(test::max_abs_diff(fed, preprocess_image(read_image(images.at(0)), 160, 160, nullptr)),
            0.0);
  EXPECT_FALSE(fs::exists(dir + "/inf/output0.npy"));  // raw outputs, as a board gives them
  EXPECT_TRUE(fs::exists(output_npy_path(dir + "/inf", g.outputs[0].name)));

  auto bench = test::run_cli("bench --model " + shell_quote(raw) + " --runs 2 --warmup 1 --json " +
                             shell_quote(dir + "/bench.json"));
  ASSERT_EQ(bench.exit_code, 0) << bench.err;
  EXPECT_NE(bench.out.find("raw head: graph "), std::string::npos) << bench.out;
  const auto bj = nlohmann::json::parse(std::ifstream(dir + "/bench.json"));
  EXPECT_GT(bj["host_decode_median_ms"].template get<double>(), 0);
  EXPECT_GT(bj["graph_median_ms"].template get<double>(), 0);

  // Refusals: no head to cut; damaged metadata given to run.
  Graph tiny;
  tiny.inputs.push_back({"x", DType::kFloat32, {1, 3, 8, 8}});
  tiny.nodes.push_back(test::node("relu", "Relu", {"x"}, {"y"}));
  tiny.outputs.push_back({"y", DType::kFloat32, {1, 3, 8, 8}});
  save_onnx(tiny, dir + "/tiny.onnx");
  test::expect_refusal(test::run_cli("cut --model " + shell_quote(dir + "/tiny.onnx") +
                                     " --arm head --out " + shell_quote(dir + "/t.onnx")),
                       "no YOLO head output", dir + "/t.onnx");
  Graph damaged = g;
  for (auto& [k, v] : damaged.metadata)
    if (k == kRawHeadKey) v = "{\"version\": 1";
  save_onnx(damaged, dir + "/damaged.onnx");
  test::expect_refusal(
      test::run_cli("run --model " + shell_quote(dir + "/damaged.onnx") + " --image " +
                    shell_quote(photos) + " --json " + shell_quote(dir + "/run.json")),
      "raw-head metadata (edgeq_raw_head) of model", dir + "/run.json");
}

// Session (and so Python and `run`) on a raw head predicts what it predicts on the full model.
TEST(RawHeadReal, SessionPredictsTheFullModelsDetections) {
  EDGEQ_REQUIRE_REAL_DATA();
  const Model full = Model::load(test::real_model_path());
  const Model raw = cut_model(full, CutOptions{Arm::kHead, {}, false});
  Session a(full), b(raw);
  const auto photo = list_images(test::coco8_pose_dir() + "/images/val").at(0);
  const auto da = a.predict(photo);
  const auto db = b.predict(photo);
  ASSERT_EQ(da.size(), db.size());
  ASSERT_FALSE(da.empty());
  for (size_t i = 0; i < da.size(); ++i) {
    EXPECT_NEAR(da[i].x1, db[i].x1, 0.01);
    EXPECT_NEAR(da[i].y2, db[i].y2, 0.01);
    ASSERT_EQ(da[i].keypoints.size(), 17u);
    ASSERT_EQ(db[i].keypoints.size(), 17u);
    for (size_t k = 0; k < 17; ++k) EXPECT_NEAR(da[i].keypoints[k].x, db[i].keypoints[k].x, 0.01);
  }
}

}  // namespace
}  // namespace edgeq
