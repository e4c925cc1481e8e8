// Shared test helpers: where the real model and photos live, and ONNX Runtime as the oracle (via
// Node).
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ir/graph.h"

namespace edgeq::test {

// The real model and photos, in the repository (models/, data/): always there in a clone, so
// tests on them never skip; EDGEQ_REQUIRE_REAL_DATA fails a test when a checkout lacks them.
std::string real_model_path();  // models/yolo11n-pose.onnx
std::string coco8_pose_dir();   // data/coco8-pose (images/ and labels/, train and val)
// The source and build folders (only test_util.cpp is compiled with their paths, so the other test
// files compile the same in every checkout).
std::string source_dir();
std::string binary_dir();
// The message of the edgeq::Error `f` throws, or "" when it throws none.
std::string error_of(const std::function<void()>& f);
// Empty when the ORT oracle can run; otherwise the reason it cannot.
std::string ort_unavailable_reason();
// How ONNX Runtime runs a model. kFormula (graph optimization "basic") keeps QDQ as
// DequantizeLinear -> float op -> QuantizeLinear: the exact QDQ formula, the oracle for what
// edgeq computes. kOrtKernels (ORT's default, "all") fuses 8-bit QDQ into ORT's own int8 kernels,
// which add u8 x s8 products in saturating int16 pairs on x86 CPUs without VNNI (docs/lessons.md,
// lesson 10): only tests of those kernels ask for it, and say what they expect on each CPU kind.
enum class OrtGraph { kFormula, kOrtKernels };
// Runs `model` in ONNX Runtime (CPU) on `inputs`; returns outputs by name ('/', '\\' and ':' in
// names become '_').
std::map<std::string, Tensor> run_ort(const std::string& model,
                                      const std::map<std::string, Tensor>& inputs,
                                      OrtGraph how = OrtGraph::kFormula);
// Same, one ORT session for several input sets.
std::vector<std::map<std::string, Tensor>> run_ort_many(
    const std::string& model, const std::vector<std::map<std::string, Tensor>>& runs,
    OrtGraph how = OrtGraph::kFormula);
// Whether ONNX Runtime's int8 kernels on this CPU sum u8 x s8 products in int32 (VNNI) rather than
// in saturating int16 pairs (ORT's CPU library dispatches on the CPU itself, not on oneDNN's cap).
bool cpu_has_vnni();
// A fresh temporary directory for one test, removed with everything in it when the test process
// ends.
std::string temp_dir(const std::string& tag);
// A folder of results computed once per CTest run and shared by every test process that asks for
// `name` (CTest runs each test in its own process, so a static fixture is computed again in each):
// the first fills the empty folder with `build` while holding a file lock (a second process waits
// for it), then marks it complete; the others only read it. Callers must not change what is in
// it (write to a temp_dir). The folder lies under $EDGEQ_TEST_FIXTURES, which CTest's fixture
// "edgeq_shared_fixtures" (CMakeLists.txt) empties before a run's first test and removes after
// its last; without the variable (the test program run directly) each process builds its own in
// a temp_dir.
std::string shared_fixture(const std::string& name,
                           const std::function<void(const std::string& dir)>& build);
// Max |a-b| over all elements (shapes must match).
double max_abs_diff(const Tensor& a, const Tensor& b);
// The coarsest step among the encodings a QDQ model's `output` is assembled from: its own when it
// has one, else those of the first encoded values behind the float Concat / Reshape nodes that
// write it (the default YOLO output assembly, quant/decode_tail.h).
double output_step(const Graph& qdq, const std::string& output);

}  // namespace edgeq::test

// Fails the current test (never skips) when the checkout lacks the in-tree model or photos.
#define EDGEQ_REQUIRE_REAL_DATA()                                                           \
  do {                                                                                      \
    ASSERT_TRUE(std::filesystem::is_regular_file(::edgeq::test::real_model_path()))         \
        << ::edgeq::test::real_model_path() << " is missing from this checkout";            \
    ASSERT_TRUE(std::filesystem::is_directory(::edgeq::test::coco8_pose_dir() + "/images")) \
        << ::edgeq::test::coco8_pose_dir() << "/images is missing from this checkout";      \
  } while (0)
#define EDGEQ_REQUIRE_ORT()                                     \
  do {                                                          \
    std::string why_ = ::edgeq::test::ort_unavailable_reason(); \
    if (!why_.empty()) GTEST_SKIP() << "skipped: " << why_;     \
  } while (0)
