// The command line as a function: parses argv, runs one subcommand, returns the exit status.
// The program's main() and the Python module's `python3 -m edgeq` both call it.
#include <CLI/CLI.hpp>
#include <iostream>

#include "commands.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/interrupt.h"
#include "edgeq/machine.h"
#include "ledger_options.h"

namespace edgeq::cli {

void build_app(CLI::App& app) {
  app.description(
      "edgeq: quantize YOLO11 models for edge NPUs and CPUs, and prove they are still right");
  app.require_subcommand(1);
  app.set_version_flag("--version", "edgeq " EDGEQ_VERSION);
  // A usage error is one line, as every other error: "edgeq: error: --n: 0 is outside [1, ...]".
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "edgeq: error: " + printable(e.what()) + " (see --help)\n";
  });
  register_all(app);
}

int run_command_line(int argc, char** argv) {
  set_command_line(argc, argv);
  CLI::App app;
  build_app(app);
  // The program never replaces a file it read (core/io_guard.h); library users opt in.
  guard_inputs(true);
  try {
    simd_in_use();  // a bad EDGEQ_SIMD is refused before any work
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const Cancelled& e) {  // its message says what was kept, when anything was
    // SIGINT or SIGTERM (core/interrupt.h): the status a shell shows for a process the signal
    // ended, 130 or 143.
    const int sig = last_interrupt_signal() ? last_interrupt_signal() : SIGINT;
    const std::string kept = e.what();
    std::cerr << "edgeq: interrupted (" << (sig == SIGTERM ? "SIGTERM" : "SIGINT") << "); "
              << (kept == "cancelled" ? "nothing written" : kept) << "\n";
    return 128 + sig;
  } catch (const std::exception& e) {
    std::cerr << "edgeq: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace edgeq::cli
