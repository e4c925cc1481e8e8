#include "cli_util.h"

#include <sys/wait.h>

#include <cstdlib>

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

}  // namespace edgeq::test
