// One file per subcommand; each adds itself to the app in register_<name>().
// Subcommands run inside callbacks; they throw edgeq::Error for user-facing failures.
#pragma once
#include <CLI/CLI.hpp>

#include "edgeq/cli.h"  // run_command_line

namespace edgeq::cli {

// The program's command line: every subcommand and its options on `app`, usage errors printed as
// one line. Parsing runs the subcommand given (its callback); the fuzz harness for the parser
// (fuzz/fuzz_options.cpp) stops in the root's parse-complete callback, before any of them.
void build_app(CLI::App& app);

void register_all(CLI::App& app);

void register_infer(CLI::App& app);
void register_bench(CLI::App& app);
void register_scenes(CLI::App& app);
void register_zoo(CLI::App& app);
void register_inspect(CLI::App& app);
void register_run(CLI::App& app);
void register_cut(CLI::App& app);
void register_compare(CLI::App& app);
void register_doctor(CLI::App& app);
void register_patch(CLI::App& app);
void register_calibrate(CLI::App& app);
void register_stats(CLI::App& app);
void register_quantize(CLI::App& app);
void register_augment(CLI::App& app);
void register_study(CLI::App& app);
void register_probe(CLI::App& app);
void register_ledger(CLI::App& app);

}  // namespace edgeq::cli
