// Writes the seed corpora of the fuzz harnesses: tiny valid files of each kind and a few
// truncated ones. Run by hand when a format changes (the output is committed):
//   build-asan/edgeq_fuzz_seeds fuzz/corpus
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <random>

#include "calib/calibrator.h"
#include "calib/stats.h"
#include "core/file_io.h"
#include "core/npy.h"
#include "encode/encodings_json.h"
#include "encode/qdq_export.h"
#include "encode/qdq_import.h"
#include "encode/quant_config.h"
#include "encode/quant_plan.h"
#include "graph_builders.h"
#include "ir/onnx_io.h"
#include "quant/activation_encodings.h"

namespace {
using namespace edgeq;
using edgeq::test::node;
namespace fs = std::filesystem;

std::string out_dir;

void seed(const std::string& fuzzer, const std::string& name, const std::string& bytes) {
  fs::create_directories(out_dir + "/" + fuzzer);
  write_file_atomic(out_dir + "/" + fuzzer + "/" + name, bytes);
}

// The seed and two truncations of it.
void seed_truncated(const std::string& fuzzer, const std::string& name, const std::string& b) {
  seed(fuzzer, name, b);
  seed(fuzzer, name + ".half", b.substr(0, b.size() / 2));
  seed(fuzzer, name + ".cut1", b.substr(0, b.size() - 1));
}

// x [1,2,4,4] -> Conv 1x1 -> SiLU (Sigmoid, Mul) -> MaxPool 2x2 -> Reshape [1,2,4] -> Softmax.
Graph tiny_model() {
  Graph g;
  g.inputs = {{"x", DType::kFloat32, {1, 2, 4, 4}}};
  g.outputs = {{"y", DType::kFloat32, {1, 2, 4}}};
  g.initializers["w"] = Tensor::from_vector<float>({2, 2, 1, 1}, {0.5f, -1.0f, 2.0f, 0.25f});
  g.initializers["b"] = Tensor::from_vector<float>({2}, {0.1f, -0.3f});
  g.initializers["shape"] = Tensor::from_vector<int64_t>({3}, {1, 2, 4});
  g.nodes.push_back(node("conv", "Conv", {"x", "w", "b"}, {"c"}));
  g.nodes.push_back(node("sig", "Sigmoid", {"c"}, {"s"}));
  g.nodes.push_back(node("mul", "Mul", {"c", "s"}, {"m"}));
  Node pool = node("pool", "MaxPool", {"m"}, {"p"});
  pool.attrs["kernel_shape"] = Attribute::integers({2, 2});
  pool.attrs["strides"] = Attribute::integers({2, 2});
  g.nodes.push_back(pool);
  g.nodes.push_back(node("reshape", "Reshape", {"p", "shape"}, {"r"}));
  Node softmax = node("softmax", "Softmax", {"r"}, {"y"});
  softmax.attrs["axis"] = Attribute::integer(-1);
  g.nodes.push_back(softmax);
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  out_dir = argv[1];
  const Graph g = tiny_model();

  // Statistics over a few random inputs, then a W8A8 QDQ model and its encodings.
  Calibrator cal(g, "seed", "random");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  for (int k = 0; k < 3; ++k) {
    std::vector<float> v(32);
    for (float& x : v) x = u(rng);
    cal.add({{"x", Tensor::from_vector<float>({1, 2, 4, 4}, v)}});
  }
  const Stats stats = cal.take();
  const QuantConfig config = config_for_scheme(Scheme::kW8A8);
  const QuantPlan plan =
      plan_quantization(g, config, [&](const std::string& v) { return stats.values.count(v); });
  const Graph qdq = export_qdq(g, plan, activation_encodings(g, plan, stats, config), config).graph;

  seed_truncated("fuzz_onnx", "tiny.onnx", serialize_onnx(g));
  seed_truncated("fuzz_onnx", "tiny_w8a8.onnx", serialize_onnx(qdq));

  seed_truncated("fuzz_npy", "f32_2x3",
                 serialize_npy(Tensor::from_vector<float>({2, 3}, {1, -2, 3.5f, 0, 1e-3f, 7})));
  seed("fuzz_npy", "u8_5", serialize_npy(Tensor::from_vector<uint8_t>({5}, {0, 1, 2, 254, 255})));
  seed("fuzz_npy", "i64_scalar", serialize_npy(Tensor::scalar<int64_t>(-42)));

  // The calibrated stats (histograms of thousands of bins), and small ones: single-valued
  // histograms (one bin each) and one of a few spread values with a NaN and an Inf.
  Stats small;
  small.model_sha256 = "seed";
  small.preprocessing = "none";
  small.images = 1;
  const float same[] = {0.5f, 0.5f, 0.5f}, spread[] = {-1.0f, 0.0f, 3.0f, NAN, INFINITY};
  small.values["a"].add(same, 3);
  small.values["b"].add(same, 1);
  Stats spread_stats = small;
  spread_stats.values["c"].add(spread, 5);
  const std::string tmp = out_dir + "/.tmp_stats";
  auto file_of = [&](const Stats& st, const char* ext) {
    save_stats(st, tmp + ext);
    std::string bytes = read_file(tmp + ext);
    fs::remove(tmp + ext);
    return bytes;
  };
  seed("fuzz_stats", "calibrated.cbor", file_of(stats, ".cbor"));
  seed_truncated("fuzz_stats", "single.cbor", file_of(small, ".cbor"));
  seed_truncated("fuzz_stats", "single.json", file_of(small, ".json"));
  seed("fuzz_stats", "spread.cbor", file_of(spread_stats, ".cbor"));
  seed("fuzz_stats", "spread.json", file_of(spread_stats, ".json"));

  const EncodingSet enc = encodings_from_qdq(qdq);
  seed_truncated("fuzz_encodings", "tiny_1.0.0.json", encodings_to_json(enc, "1.0.0"));
  seed("fuzz_encodings", "tiny_0.6.1.json", encodings_to_json(enc, "0.6.1"));

  // Label seeds start with the model the harness checks them against: classes, keypoints.
  const std::string coco_detect("\x50\x00", 2), one_pose("\x01\x11", 2), none("\x00\x00", 2);
  seed("fuzz_labels", "detect.txt", coco_detect + "0 0.5 0.5 0.25 0.5\n16 0.1 0.2 0.05 0.05\n");
  const std::string pose = "0 0.5 0.5 0.4 0.8 " + [] {
    std::string k;
    for (int i = 0; i < 17; ++i) k += "0.5 0.4 " + std::to_string(i % 3) + " ";
    return k;
  }() + "\n";
  seed("fuzz_labels", "pose.txt", one_pose + pose);
  seed("fuzz_labels", "pose_any_model.txt", none + pose);
  seed("fuzz_labels", "pose_xy.txt",
       std::string("\x01\x02", 2) + "0 0.5 0.5 0.4 0.8 0.1 0.2 0.3 0.4\n");
  seed("fuzz_labels", "bom.txt",
       coco_detect +
           "\xEF\xBB\xBF"
           "3 0.5 0.5 0.25 0.5\n");
  seed("fuzz_labels", "blank_lines.txt", none + "\n0 0.5 0.5 0.25 0.5\n\n");
  seed("fuzz_labels", "cut.txt", one_pose + "0 0.5 0.5 0.2");

  // Command lines for the option parser, one per subcommand and one of bad numbers: the
  // arguments joined by NUL, as fuzz_options splits them.
  const std::pair<const char*, const char*> command_lines[] = {
      {"calibrate",
       "calibrate --model m.onnx --images img --n 128 --seed 0 --shard 0/4 --threads 2 --workers 0 "
       "--histogram-stride 64 --out s.cbor"},
      {"quantize",
       "quantize --model m.onnx --stats s.cbor --scheme w8a8 --range percentile --percentile 99.9 "
       "--auto 5 --auto-n 16 --images v --n 8 --seed 3 --repair-memory 512 --threads 1 --out "
       "q.onnx"},
      {"compare",
       "compare --ref a.onnx --test b.onnx --images img --n 0 --conf 0.25 --iou 0.7 --map-conf "
       "0.001 --threads 2 --quiet"},
      {"run",
       "run --model m.onnx --image img --conf 0.5 --iou 0.6 --max-det 300 --pipeline --queue 4 "
       "--threads 3"},
      {"bench",
       "bench --model m.onnx --runs 10 --warmup 1 --workers 2 --threads 4 --exec int8 --emulate "
       "avx2"},
      {"infer", "infer --model m.onnx --image x.jpg --out o --threads 1"},
      {"doctor",
       "doctor --model m.onnx --images img --max-images 8 --sensitivity 4 --top-percent 10 "
       "--max-info 15"},
      {"probe", "probe --model a.onnx --images img --labels l.csv --folds 5 --l2 0.1 --threads 2"},
      {"study",
       "study --models a.onnx,b.onnx --images i --test t --out o --schemes w8a16,w8a8-auto5 "
       "--calib-n 16 --seed 1 --test-n 0 --auto-n 4 --bench-runs 3 --bench-warmup 0 --threads 2 "
       "--worker 0/2 --lease 30"},
      {"scenes", "scenes --video v.avi --n 20 --seed 7 --size 320x240 --fps 30"},
      {"augment", "augment --images img --out o --n 4 --seed 9 --kinds flip,crop"},
      {"zoo", "zoo yolo11n --imgsz 160 -o m.onnx"},
      {"ledger",
       "ledger check l.sqlite --baseline a --candidate b --max-drop match_rate=0.01 --max-rise "
       "latency_ms=5%"},
      {"stats", "stats merge a.cbor b.cbor -o c.cbor"},
      {"patch", "patch --model q.onnx --tensor a,b --range -1 2 --bits 16 --out p.onnx"},
      {"cut", "cut --model m.onnx --arm A --out a.onnx"},
      {"inspect", "inspect --model m.onnx --json j.json"},
      {"bad_numbers",
       "calibrate --model m.onnx --images i --out s --n -1 --seed 18446744073709551616 --threads "
       "100000 --histogram-stride 010"},
  };
  for (const auto& [name, line] : command_lines) {
    std::string args = line;
    std::replace(args.begin(), args.end(), ' ', '\0');
    seed("fuzz_options", name, args);
  }

  cv::Mat img(6, 8, CV_8UC3);
  cv::randu(img, 0, 255);
  for (const char* ext : {".png", ".jpg", ".bmp"}) {
    std::vector<uchar> buf;
    cv::imencode(ext, img, buf);
    const std::string b(buf.begin(), buf.end());
    if (std::string(ext) == ".png")
      seed_truncated("fuzz_image", std::string("8x6") + ext, b);
    else
      seed("fuzz_image", std::string("8x6") + ext, b);
  }
  return 0;
}
