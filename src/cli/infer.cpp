#include "cli/commands.h"

namespace edgeq::cli {
void register_infer(CLI::App& app) {}
}  // namespace edgeq::cli
