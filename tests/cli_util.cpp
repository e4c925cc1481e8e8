#include "cli_util.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/file_io.h"
#include "test_util.h"

namespace edgeq::test {

CliResult run_cli(const std::string& args) {
  const char* env = std::getenv("EDGEQ_BIN");
  std::string bin = env ? env : std::string(EDGEQ_BINARY_DIR) + "/edgeq";
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

}  // namespace edgeq::test
