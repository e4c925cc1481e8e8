// edgeq scenes: write deterministic synthetic images (for demos and calibration smoke runs).
#include <iostream>

#include "cli/commands.h"
#include "vision/synthetic_scenes.h"

namespace edgeq::cli {

void register_scenes(CLI::App& app) {
  struct Args {
    std::string out;
    int n = 8;
    uint32_t seed = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("scenes", "Write synthetic test images (stick figures on streets)");
  cmd->add_option("--out", a->out, "folder to write into")->required();
  cmd->add_option("--n", a->n, "number of images")->capture_default_str();
  cmd->add_option("--seed", a->seed, "seed")->capture_default_str();
  cmd->callback([a] {
    auto paths = write_synthetic_scenes(a->out, a->n, a->seed);
    std::cout << "wrote " << paths.size() << " images to " << a->out << "\n";
  });
}

}  // namespace edgeq::cli
