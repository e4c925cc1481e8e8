#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "core/error.h"

int main(int argc, char** argv) {
  CLI::App app{"edgeq: quantize YOLO11 models for edge NPUs and CPUs, and prove they are still right"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "edgeq 0.1.0");
  edgeq::cli::register_all(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const edgeq::Error& e) {
    std::cerr << "edgeq: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "edgeq: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
