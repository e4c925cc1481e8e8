#include "commands.h"

namespace edgeq::cli {

void register_all(CLI::App& app) {
  register_infer(app);
  register_bench(app);
  register_scenes(app);
  register_zoo(app);
  register_inspect(app);
  register_run(app);
  register_cut(app);
  register_compare(app);
  register_doctor(app);
  register_patch(app);
  register_calibrate(app);
  register_stats(app);
  register_quantize(app);
  register_augment(app);
  register_study(app);
  register_probe(app);
  register_ledger(app);
}

}  // namespace edgeq::cli
