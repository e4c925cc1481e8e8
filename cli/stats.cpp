// edgeq stats merge: add up the statistics of calibration shards (exact: merged == one pass).
#include <iostream>

#include "commands.h"
#include "edgeq/calibrate.h"
#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/text.h"

namespace edgeq::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::string out;
};

void run_merge(const MergeArgs& a) {
  std::vector<RoleFile> inputs;
  for (const std::string& in : a.inputs) inputs.push_back({"input", in});
  check_distinct_files(inputs, {{"-o", a.out}});
  EDGEQ_CHECK(a.inputs.size() >= 2, "stats merge needs at least two stats files");
  std::vector<CalibrationStats> shards;
  for (const std::string& in : a.inputs) shards.push_back(CalibrationStats::load(in));
  const CalibrationStats total = CalibrationStats::merge(shards);
  total.save(a.out);
  std::cout << "merged " << a.inputs.size() << " stats files: " << total.images() << " images, "
            << total.values() << " values\nwrote " << printable(a.out) << "\n";
}

}  // namespace

void register_stats(CLI::App& app) {
  auto* cmd = app.add_subcommand("stats", "Work with calibration statistics");
  cmd->require_subcommand(1);
  auto a = std::make_shared<MergeArgs>();
  auto* merge = cmd->add_subcommand(
      "merge", "Merge stats of calibration shards (same model and preprocessing)");
  merge->add_option("inputs", a->inputs, "stats files")->required()->expected(2, -1);
  merge->add_option("-o,--out", a->out, "stats file to write")->required();
  merge->callback([a] { run_merge(*a); });
}

}  // namespace edgeq::cli
