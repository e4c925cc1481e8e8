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

// A refused command (gtest expectations): non-zero exit, `needle` on stderr in exactly one error
// line ("edgeq: error: ...", progress lines may come before it), and `out` not written.
void expect_refusal(const CliResult& r, const std::string& needle, const std::string& out);

}  // namespace edgeq::test
