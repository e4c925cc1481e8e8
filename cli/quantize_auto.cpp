#include "quantize_auto.h"

#include <cstdio>

#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/mixed_set.h"
#include "edgeq/text.h"
#include "number_options.h"

namespace edgeq::cli {

void add_auto_options(CLI::App* cmd, AutoArgs& a) {
  add_number(cmd, "--auto", a.options.percent, ranges::kBudgetPercent,
             "w8a8: search which values to keep at 16 bit, at most this percent of the "
             "activation values (the decode tail included), on --images (a validation "
             "split the stats did not see)")
      ->each([&a](const std::string&) { a.given = true; });
  add_number(cmd, "--auto-n", a.options.n, ranges::kImages,
             "--auto: use at most this many of --images")
      ->capture_default_str();
  cmd->add_option("--auto-out", a.set_out,
                  "--auto: write the chosen set (edgeq-mixed JSON, usable with --mixed)");
  cmd->add_option("--auto-log", a.log_out, "--auto: write every evaluation of the search as JSON");
}

void check_auto_args(const AutoArgs& a) {
  EDGEQ_CHECK(a.given || (a.set_out.empty() && a.log_out.empty()),
              "--auto-out / --auto-log need --auto");
}

void write_auto_results(const AutoArgs& a, const AutoSearchReport& r) {
  if (!r.ran) return;
  std::printf(
      "auto %g%%: %zu of %zu values at 16 bit (%zu chosen by the search); loss %.4g -> "
      "%.4g (box %.3g -> %.3g px, kpt %.3g -> %.3g px, score %.3g -> %.3g, flipped %.3g "
      "-> %.3g) on %zu validation images\n",
      r.percent, r.values16, r.values, r.chosen.size(), r.base_loss, r.loss, r.base.box_px,
      r.result.box_px, r.base.kpt_px, r.result.kpt_px, r.base.score, r.result.score, r.base.flipped,
      r.result.flipped, r.images);
  if (!a.set_out.empty()) {
    MixedSet m;
    m.a16 = r.chosen;
    save_mixed_set(m, a.set_out);
    std::printf("wrote %s (--mixed)\n", printable(a.set_out).c_str());
  }
  if (!a.log_out.empty()) {
    write_file_atomic(a.log_out, r.log_json);
    std::printf("wrote %s\n", printable(a.log_out).c_str());
  }
}

}  // namespace edgeq::cli
