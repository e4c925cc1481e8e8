#include "cli_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/file_io.h"
#include "test_util.h"

namespace edgeq::test {

std::string edgeq_bin() {
  const char* env = std::getenv("EDGEQ_BIN");
  return env ? env : binary_dir() + "/edgeq";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

void save_cli_result(const CliResult& r, const std::string& prefix) {
  std::ofstream(prefix + ".code") << r.exit_code;
  std::ofstream(prefix + ".out", std::ios::binary) << r.out;
  std::ofstream(prefix + ".err", std::ios::binary) << r.err;
}

CliResult load_cli_result(const std::string& prefix) {
  CliResult r;
  r.exit_code = std::stoi(read_file(prefix + ".code"));
  r.out = read_file(prefix + ".out");
  r.err = read_file(prefix + ".err");
  return r;
}

CliResult run_cli(const std::string& args) {
  const std::string bin = edgeq_bin();
  std::string dir = temp_dir("cli");
  std::string cmd =
      "'" + bin + "' " + args + " > '" + dir + "/out' 2> '" + dir + "/err' < /dev/null";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(dir + "/out");
  r.err = read_file(dir + "/err");
  return r;
}

void expect_refusal(const CliResult& r, const std::string& needle, const std::string& out) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  size_t errors = 0;
  std::stringstream ss(r.err);
  for (std::string line; std::getline(ss, line);) errors += line.find("error") != std::string::npos;
  EXPECT_EQ(errors, 1u) << r.err;
  EXPECT_NE(r.err.rfind("edgeq: error: "), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << out << " was written";
}

const CliModelFixture& cli_model_fixture() {
  static const CliModelFixture f = [] {
    CliModelFixture f;
    f.dir = temp_dir("cli_model");
    f.model = real_model_path();
    f.images = coco8_pose_dir() + "/images";
    return f;
  }();
  return f;
}

int spawn_cli(const std::vector<std::string>& args, const std::string& out_path,
              const std::string& err_path) {
  const std::string bin = edgeq_bin();
  std::fflush(nullptr);  // or the child writes what this process had buffered
  const pid_t child = fork();
  if (child == 0) {
    // As from a terminal, whatever this process inherited (a background job ignores SIGINT).
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::freopen(out_path.c_str(), "w", stdout);
    std::freopen(err_path.c_str(), "w", stderr);
    std::vector<char*> argv{const_cast<char*>(bin.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return child;
}

int wait_cli(int pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

nlohmann::json without_timing(const nlohmann::json& j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : j.items()) {
      const bool timing = k == "timing" || k == "seconds" || k == "peak_rss_bytes" || k == "peak" ||
                          k == "throughput_ms_per_run" ||
                          (k.size() > 3 && k.compare(k.size() - 3, 3, "_ms") == 0);
      if (!timing && k != "out") out[k] = without_timing(v);
    }
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(without_timing(v));
    return out;
  }
  return j;
}

}  // namespace edgeq::test
