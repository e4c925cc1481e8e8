// The edgeq command line as a call: what the program's main() and `python -m edgeq` run. The one
// header of the command-line library (target edgeq_cli); every command is a front end over
// include/edgeq.
#pragma once

namespace edgeq::cli {

// Parses argv (argv[0] the program name), runs one subcommand, returns the exit status: 0, 1 on
// an error (printed), 128 + the signal when SIGINT or SIGTERM stopped it (130, 143), CLI11's
// status for a usage error.
int run_command_line(int argc, char** argv);

}  // namespace edgeq::cli
