// The command line's option parser, every subcommand (cli/commands.h): fuzzed bytes split at NUL
// into argv after "edgeq", parsed by the program's own app, which stops once the command line is
// parsed and checked, before any subcommand's callback: nothing runs, reads or writes; only
// CLI11's parsing, the number options' ranges (core/option_range.h) and the options' needs /
// excludes. A usage error must print exactly one line ("edgeq: error: ..."); a crash, a sanitizer
// report or another exception is a finding.
#include <sstream>
#include <vector>

#include "cli/commands.h"
#include "fuzz_util.h"

namespace {

// Thrown by the root app's parse-complete callback, which CLI11 runs after every option is parsed
// and validated and before the subcommands' callbacks (which own the options' storage, so they
// are kept, not cleared).
struct Parsed {};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgeq;
  if (size > 4096) return 0;  // a command line, not a file
  std::vector<std::string> args;
  std::string arg;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += static_cast<char>(data[i]);
    }
  }
  if (!arg.empty() || args.empty()) args.push_back(arg);
  std::vector<char*> argv{const_cast<char*>("edgeq")};
  for (std::string& a : args) argv.push_back(a.data());

  CLI::App app;
  cli::build_app(app);
  app.parse_complete_callback([] { throw Parsed{}; });
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    fuzz::require(false, "a subcommand's callback was reached");
  } catch (const Parsed&) {
    // parsed and checked: nothing ran
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    const int rc = app.exit(e, out, err);
    const std::string printed = err.str();
    // --help / --version print to `out` and succeed; any other outcome is one line on `err`.
    if (rc != 0)
      fuzz::require(!printed.empty() && printed.find('\n') == printed.size() - 1 &&
                        printed.rfind("edgeq: error: ", 0) == 0,
                    "a usage error is not one 'edgeq: error:' line");
  } catch (const Error& e) {
    const std::string m = e.what();
    fuzz::require(!m.empty() && m.find('\n') == std::string::npos, "an error is not one line");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "finding: exception other than edgeq::Error: %s\n", e.what());
    std::abort();
  }
  return 0;
}
