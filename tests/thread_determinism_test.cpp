// Forward results do not depend on the thread count: the real yolo11n-pose run at 1, 2 and 3
// threads gives bit-identical outputs, and bit-identical values for every activation when every
// value is watched (as calibration does), on a real image, in the default executor (NHWC, fusion).
// A difference names the first value (in execution order) where it appears. Not covered: the
// plain-layout executor (ExecutorOptions::channels_last = false, no CLI path), whose NCHW
// convolutions run on oneDNN's gemm, which sums in a thread-dependent order (/model.7/conv is the
// first to differ).
#include <gtest/gtest.h>

#include <functional>
#include <string_view>

#include "ir/onnx_io.h"
#include "runtime/executor.h"
#include "test_util.h"
#include "vision/image_io.h"
#include "vision/letterbox.h"

namespace edgeq {
namespace {

// Every float activation of one forward (in its ONNX layout), as a hash of its bytes.
struct Forward {
  std::vector<std::string> order;  // values in the order they were computed
  std::map<std::string, size_t> hashes;
};

size_t bytes_hash(const Tensor& t) {
  return std::hash<std::string_view>()(
      std::string_view(static_cast<const char*>(t.raw()), t.nbytes()));
}

// watch_all: hooks on every value (as calibration has; they keep values from being fused away);
// otherwise only the graph outputs are compared, on the plan as `infer` runs it.
Forward run_at(const Graph& g, const Tensor& x, int threads, bool plain, bool watch_all) {
  ExecutorOptions opt;
  opt.threads = threads;
  if (plain) {
    opt.channels_last = false;
    opt.fuse = false;
  }
  Executor ex(g, opt);
  Forward f;
  if (watch_all)
    ex.add_hook("*", [&f](const std::string& name, const Tensor& t) {
      f.order.push_back(name);
      f.hashes[name] = bytes_hash(t);
    });
  for (const auto& [name, t] : ex.run({{g.inputs.at(0).name, x}})) {
    if (!f.hashes.count(name)) f.order.push_back(name);
    f.hashes[name] = bytes_hash(t);
  }
  return f;
}

// The first value (in execution order) whose bytes differ, and how many values differ; "" when
// all are identical.
std::string first_difference(const Forward& a, const Forward& b) {
  std::string first;
  int n = 0;
  for (const std::string& name : a.order) {
    auto it = b.hashes.find(name);
    if (it != b.hashes.end() && it->second == a.hashes.at(name)) continue;
    if (first.empty()) first = name;
    ++n;
  }
  return first.empty() ? "" : first + " and " + std::to_string(n - 1) + " later values differ";
}

void check_threads(bool plain, bool watch_all) {
  Graph g;
  Tensor x;
  const std::string model = test::real_model_path();
  g = load_onnx(model);
  const auto images = list_images(test::coco8_pose_dir() + "/images");
  ASSERT_FALSE(images.empty());
  x = preprocess_image(read_image(images.front()), 640, 640, nullptr);
  std::printf("model: %s, image %s\n", model.c_str(), images.front().c_str());
  const Forward one = run_at(g, x, 1, plain, watch_all);
  ASSERT_GT(one.order.size(), watch_all ? 100u : 0u);
  for (int threads : {2, 3}) {
    const Forward other = run_at(g, x, threads, plain, watch_all);
    EXPECT_EQ(first_difference(one, other), "")
        << (plain ? "plain" : "default") << " executor, 1 vs " << threads << " threads";
  }
}

TEST(ThreadDeterminism, DefaultExecutorOutputsAtOneTwoThreeThreads) {
  check_threads(false, false);
}

TEST(ThreadDeterminism, EveryWatchedValueAtOneTwoThreeThreads) {
  check_threads(false, true);
}

}  // namespace
}  // namespace edgeq
