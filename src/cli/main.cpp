#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/ledger_options.h"
#include "core/error.h"
#include "core/io_guard.h"
#include "core/simd.h"

namespace {

// libgomp (used by our kernels and by oneDNN) reads its wait policy once, when it loads. Its
// default (spin ~300k iterations, then sleep) collapses when other processes compete for the
// cores, while fully passive waiting pays a wake-up on each of the ~300 parallel regions per
// frame. Measured on a shared 2-core machine (yolo11n-pose, 2 threads, median ms):
//   heavy load: default 1023, passive 144;  light load: default 34, passive 65, spin 3000 37.
// So unless the user chose, run again once with a short spin (GOMP_SPINCOUNT=5000).
void choose_omp_wait_policy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  setenv("GOMP_SPINCOUNT", "5000", 1);
  execv("/proc/self/exe", argv);  // on failure, carry on with the default policy
}

}  // namespace

int main(int argc, char** argv) {
  choose_omp_wait_policy(argv);
  edgeq::cli::set_command_line(argc, argv);
  CLI::App app{
      "edgeq: quantize YOLO11 models for edge NPUs and CPUs, and prove they are still right"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "edgeq 0.1.0");
  edgeq::cli::register_all(app);
  // The program never replaces a file it read (core/io_guard.h); library users opt in.
  edgeq::guard_inputs(true);
  try {
    edgeq::simd_level();  // a bad EDGEQ_SIMD is refused before any work
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const edgeq::Cancelled&) {
    std::cerr << "edgeq: interrupted; nothing written\n";
    return 130;
  } catch (const edgeq::Error& e) {
    std::cerr << "edgeq: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "edgeq: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
