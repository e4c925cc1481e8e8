#include "cli_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/file_io.h"
#include "test_util.h"

namespace edgeq::test {

std::string edgeq_bin() {
  const char* env = std::getenv("EDGEQ_BIN");
  return env ? env : std::string(EDGEQ_BINARY_DIR) + "/edgeq";
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
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

}  // namespace edgeq::test
