#include "test_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/file_io.h"
#include "core/npy.h"
#include "encode/qdq_import.h"

namespace fs = std::filesystem;

namespace edgeq::test {

std::string source_dir() {
  return EDGEQ_SOURCE_DIR;
}

std::string binary_dir() {
  return EDGEQ_BINARY_DIR;
}

std::string real_model_path() {
  return EDGEQ_SOURCE_DIR "/models/yolo11n-pose.onnx";
}

std::string coco8_pose_dir() {
  return EDGEQ_SOURCE_DIR "/data/coco8-pose";
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

static std::string ort_script() {
  return std::string(EDGEQ_SOURCE_DIR) + "/tools/ort/ort_run.js";
}

std::string ort_unavailable_reason() {
  if (std::system("node --version > /dev/null 2>&1") != 0) return "node is not installed";
  if (!fs::exists(std::string(EDGEQ_SOURCE_DIR) + "/tools/ort/node_modules/onnxruntime-node"))
    return "onnxruntime-node is not installed (run: cd tools/ort && npm install)";
  return "";
}

namespace {

// Every folder temp_dir made, removed when the test process ends (CTest runs each test in its
// own process), so /tmp is left as it was.
class TempDirs {
 public:
  ~TempDirs() {
    std::error_code ec;
    for (const fs::path& p : dirs_) fs::remove_all(p, ec);
  }
  void add(const fs::path& p) {
    std::lock_guard<std::mutex> lock(m_);
    dirs_.push_back(p);
  }

 private:
  std::mutex m_;
  std::vector<fs::path> dirs_;
};

TempDirs& temp_dirs() {
  static TempDirs dirs;
  return dirs;
}

}  // namespace

bool cpu_has_vnni() {
#if defined(__x86_64__) || defined(__i386__)
  // CPUID leaf 7: AVX512_VNNI is ECX bit 11 of subleaf 0, AVX-VNNI EAX bit 4 of subleaf 1 (read
  // directly: clang 14's __builtin_cpu_supports does not know "avxvnni").
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  if (c & (1u << 11)) return true;
  return __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 4));
#else
  return true;
#endif
}

std::string temp_dir(const std::string& tag) {
  static std::atomic<int> counter{0};
  fs::path p = fs::temp_directory_path() / ("edgeq_test_" + tag + "_" + std::to_string(::getpid()) +
                                            "_" + std::to_string(counter++));
  fs::remove_all(p);
  fs::create_directories(p);
  temp_dirs().add(p);
  return p.string();
}

namespace {

// An exclusive flock on a file, released (with the descriptor) when it goes out of scope, an
// exception included.
class FileLock {
 public:
  explicit FileLock(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    EDGEQ_CHECK(fd_ >= 0, "cannot open the fixture lock " + path);
    while (::flock(fd_, LOCK_EX) != 0)
      EDGEQ_CHECK(errno == EINTR, "cannot lock the fixture lock " + path);
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

std::string shared_fixture(const std::string& name,
                           const std::function<void(const std::string& dir)>& build) {
  const char* root = std::getenv("EDGEQ_TEST_FIXTURES");
  if (root == nullptr || *root == '\0') {
    const std::string dir = temp_dir(name);
    build(dir);
    return dir;
  }
  fs::create_directories(root);
  const fs::path dir = fs::path(root) / name, complete = dir / ".complete";
  FileLock lock((fs::path(root) / (name + ".lock")).string());
  if (!fs::exists(complete)) {
    // Nothing, or what a process ended by a timeout or a signal left half built.
    fs::remove_all(dir);
    fs::create_directories(dir);
    build(dir.string());
    std::ofstream(complete) << "complete\n";
  }
  return dir.string();
}

std::vector<std::map<std::string, Tensor>> run_ort_many(
    const std::string& model, const std::vector<std::map<std::string, Tensor>>& runs,
    OrtGraph how) {
  EDGEQ_CHECK(!runs.empty(), "run_ort_many needs at least one run");
  std::string dir = temp_dir("ort");
  std::map<std::string, std::string> files;  // input name -> comma-separated npy files
  for (size_t k = 0; k < runs.size(); ++k)
    for (const auto& [name, t] : runs[k]) {
      std::string file =
          dir + "/in_" + std::to_string(k) + "_" + std::to_string(files.size()) + ".npy";
      save_npy(t, file);
      files[name] += (files[name].empty() ? "" : ",") + file;
    }
  const char* level = how == OrtGraph::kFormula ? "basic" : "all";
  std::string cmd =
      "node '" + ort_script() + "' run --opt " + level + " '" + model + "' '" + dir + "/out'";
  for (const auto& [name, list] : files) cmd += " '" + name + "=" + list + "'";
  cmd += " 2> '" + dir + "/err.txt'";
  if (std::system(cmd.c_str()) != 0) {
    std::string err = read_file(dir + "/err.txt");
    while (!err.empty() && err.back() == '\n') err.pop_back();
    fail("ONNX Runtime failed on ", model, ": ", err);
  }
  std::vector<std::map<std::string, Tensor>> out(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    std::string sub = runs.size() > 1 ? dir + "/out/" + std::to_string(k) : dir + "/out";
    for (const auto& e : fs::directory_iterator(sub))
      if (e.path().extension() == ".npy")
        out[k][e.path().stem().string()] = load_npy(e.path().string());
  }
  fs::remove_all(dir);
  return out;
}

std::map<std::string, Tensor> run_ort(const std::string& model,
                                      const std::map<std::string, Tensor>& inputs, OrtGraph how) {
  return run_ort_many(model, {inputs}, how).front();
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  EDGEQ_CHECK(a.shape() == b.shape(), "shape mismatch ", shape_str(a.shape()), " vs ",
              shape_str(b.shape()));
  auto x = a.to_floats(), y = b.to_floats();
  double m = 0;
  for (size_t i = 0; i < x.size(); ++i) m = std::max(m, std::fabs(double(x[i]) - double(y[i])));
  return m;
}

double output_step(const Graph& qdq, const std::string& output) {
  const EncodingSet enc = encodings_from_qdq(qdq);
  double step = 0;
  std::vector<std::string> todo = {output};
  while (!todo.empty()) {
    const std::string v = todo.back();
    todo.pop_back();
    auto it = enc.activations.find(v);
    if (it != enc.activations.end() && !it->second.is_float) {
      step = std::max(step, static_cast<double>(it->second.channels.at(0).scale));
      continue;
    }
    const int p = qdq.producer_of(v);
    if (p < 0) continue;
    const Node& n = qdq.nodes[p];
    EDGEQ_CHECK(n.op_type == "Concat" || n.op_type == "Reshape", "'", output, "' is written by ",
                n.describe(), " without an encoding");
    for (const std::string& in : n.inputs)
      if (!in.empty() && !qdq.is_initializer(in)) todo.push_back(in);
  }
  EDGEQ_CHECK(step > 0, "no encoding behind '", output, "'");
  return step;
}

}  // namespace edgeq::test
