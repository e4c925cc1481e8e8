// Running the edgeq program from tests.
#pragma once
#include <string>

namespace edgeq::test {

struct CliResult {
  int exit_code = 0;
  std::string out, err;
};

// Runs `edgeq ARGS` (a shell-quoted argument string) and captures its streams.
CliResult run_cli(const std::string& args);

}  // namespace edgeq::test
