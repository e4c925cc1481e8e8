// edgeq ledger: read the regression ledger that --ledger writes.
//   list FILE [--tag T] [--kind K]    one line per run
//   show FILE [@ID|TAG]               one run in full (default: the latest)
//   diff FILE A B                     metrics of two runs (@ids), or of two tags kind by kind
//   check FILE --baseline T --candidate T [--max-drop M=X,...] [--max-rise M=X%,...]
//                                     the CI gate: exit 1 with a table when a metric regressed
#include "edgeq/ledger.h"

#include <iostream>

#include "commands.h"

namespace edgeq::cli {
namespace {

struct LedgerCliArgs {
  std::string file, tag, kind, run, a, b, baseline, candidate;
  LedgerCheckOptions limits;
};

void run_list(const LedgerCliArgs& a) {
  std::cout << Ledger(a.file).list_text(a.tag, a.kind);
}

void run_show(const LedgerCliArgs& a) {
  std::cout << Ledger(a.file).show_text(a.run);
}

void run_diff(const LedgerCliArgs& a) {
  std::cout << Ledger(a.file).diff_text(a.a, a.b);
}

void run_check(const LedgerCliArgs& a) {
  validate_ledger_limits(a.limits, "--max-drop", "--max-rise");
  const LedgerCheck r = Ledger(a.file).check(a.baseline, a.candidate, a.limits);
  std::cout << r.text << std::flush;
  if (r.regressions > 0) throw CLI::RuntimeError(1);
}

}  // namespace

void register_ledger(CLI::App& app) {
  auto a = std::make_shared<LedgerCliArgs>();
  auto* cmd = app.add_subcommand("ledger", "Read the regression ledger (--ledger FILE.sqlite)");
  cmd->require_subcommand(1);

  auto* list = cmd->add_subcommand("list", "One line per recorded run");
  list->add_option("file", a->file, "ledger (SQLite)")->required();
  list->add_option("--tag", a->tag, "only runs with this tag");
  list->add_option("--kind", a->kind, "only runs of this command (calibrate, compare...)");
  list->callback([a] { run_list(*a); });

  auto* show = cmd->add_subcommand("show", "One run in full: command line, hashes, metrics");
  show->add_option("file", a->file, "ledger (SQLite)")->required();
  show->add_option("run", a->run,
                   "@ID (a run's number, as list shows it) or a tag (its latest run of each kind); "
                   "default: the last run");
  show->callback([a] { run_show(*a); });

  auto* diff = cmd->add_subcommand("diff", "Metrics of two runs (ids) or two tags side by side");
  diff->add_option("file", a->file, "ledger (SQLite)")->required();
  diff->add_option("a", a->a, "@ID or tag")->required();
  diff->add_option("b", a->b, "@ID or tag")->required();
  diff->callback([a] { run_diff(*a); });

  auto* check = cmd->add_subcommand(
      "check",
      "Regression gate: the latest runs tagged --candidate against those tagged --baseline, "
      "kind by kind; exit 1 with a table when a metric moved past its limit");
  check->add_option("file", a->file, "ledger (SQLite)")->required();
  check->add_option("--baseline", a->baseline, "tag (or @ID) of the known-good runs")->required();
  check->add_option("--candidate", a->candidate, "tag (or @ID) of the runs under test")->required();
  check
      ->add_option("--max-drop", a->limits.max_drop,
                   "metrics that must not drop by more than an amount or a percentage of the "
                   "baseline: METRIC=X[%],...")
      ->capture_default_str();
  check
      ->add_option("--max-rise", a->limits.max_rise,
                   "metrics that must not rise by more than an amount or a percentage: "
                   "METRIC=X[%],...")
      ->capture_default_str();
  check->callback([a] { run_check(*a); });
}

}  // namespace edgeq::cli
