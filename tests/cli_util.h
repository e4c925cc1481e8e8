// Running the edgeq program from tests.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace edgeq::test {

struct CliResult {
  int exit_code = 0;
  std::string out, err;
};

// A result kept in files PREFIX.code, PREFIX.out and PREFIX.err (a shared_fixture's runs).
void save_cli_result(const CliResult& r, const std::string& prefix);
CliResult load_cli_result(const std::string& prefix);
// Runs `edgeq ARGS` (a shell-quoted argument string) and captures its streams.
CliResult run_cli(const std::string& args);
// Path of the edgeq program the tests run ($EDGEQ_BIN, else the build folder's).
std::string edgeq_bin();
// Starts `edgeq ARGS` without waiting, stdout and stderr to files; returns its pid.
int spawn_cli(const std::vector<std::string>& args, const std::string& out_path,
              const std::string& err_path);
// Waits for a spawned program: its exit status, or -1 when a signal ended it.
int wait_cli(int pid);
// A report's JSON without what changes from run to run: timings (keys "timing", "seconds",
// "peak_rss_bytes", "peak" (the measured CPU peak), "throughput_ms_per_run", "*_ms") and the
// output folder ("out").
nlohmann::json without_timing(const nlohmann::json& j);
// 'S' quoted for the shell.
std::string shell_quote(const std::string& s);

// The FP32 model and images CLI tests run on: the real yolo11n-pose and the 8 coco8-pose photos
// (in the repository), and a scratch folder made once per test process.
struct CliModelFixture {
  std::string model, images, dir;
};
const CliModelFixture& cli_model_fixture();

// A refused command (gtest expectations): non-zero exit, `needle` on stderr in exactly one error
// line ("edgeq: error: ...", progress lines may come before it), and `out` not written.
void expect_refusal(const CliResult& r, const std::string& needle, const std::string& out);

}  // namespace edgeq::test
