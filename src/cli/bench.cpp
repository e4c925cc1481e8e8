#include "cli/commands.h"

namespace edgeq::cli {
void register_bench(CLI::App& app) {}
}  // namespace edgeq::cli
