// edgeq study: flags (cli/study_flags.h) -> edgeq::study (edgeq/study.h), which caches every step
// in OUT/cache and writes OUT/data.json and the self-contained OUT/index.html; or, to scale out,
// --plan (the step list), --worker i/N (a share of the steps on a shared cache) and --collect.
#include "edgeq/study.h"

#include <iostream>

#include "commands.h"
#include "edgeq/files.h"
#include "edgeq/interrupt.h"
#include "edgeq/json.h"
#include "edgeq/progress_bar.h"
#include "edgeq/text.h"
#include "ledger_options.h"
#include "number_options.h"
#include "progress_printer.h"
#include "study_flags.h"

namespace edgeq::cli {
namespace {

struct StudyArgs {
  StudyFlags flags;
  std::string plan, worker;
  double lease = StudyWorkerOptions().lease_s;
  bool collect = false;  // the default: named for scripts that run workers first
  LedgerArgs ledger;
};

void run_study_cli(const StudyArgs& a, const CLI::App& cmd) {
  StudyConfig o = study_config_from_flags(a.flags, cmd);
  // The plan and the ledger are no input and none of the files the study keeps in --out.
  std::vector<RoleFile> inputs = study_inputs(o);
  inputs.push_back({"--config", a.flags.config});
  check_distinct_files(
      inputs, {study_out_folder(o), {"--plan", a.plan, RoleFile::kText}, ledger_output(a.ledger)});
  InterruptScope interrupt;
  o.progress = line_printer(interrupt, "study");
  if (!a.plan.empty()) {
    write_file_atomic(a.plan, study_plan(o) + "\n");
    return (void)std::printf("wrote %s\n", printable(a.plan).c_str());
  }
  if (!a.worker.empty()) {
    StudyWorkerOptions w = study_worker_from_text(a.worker);
    w.lease_s = a.lease;
    const StudyWorkResult r = study_worker(o, w);
    return (void)std::printf(
        "worker %s: %zu steps computed in %s (%zu passes); %zu latency steps left to "
        "--collect\n",
        printable(a.worker).c_str(), r.computed, format_duration(r.seconds).c_str(), r.passes,
        r.deferred);
  }
  LedgerRecorder ledger(a.ledger);
  const StudyResult r = study(o);
  std::printf(
      "study: %zu runs, %zu steps (%zu cached) in %s\nwrote %s/data.json\nwrote %s/index.html\n",
      r.runs, r.steps, r.cached, format_duration(r.seconds).c_str(), printable(o.out).c_str(),
      printable(o.out).c_str());
  ledger.record("study", parse_json_text(r.ledger_json), "", o.out + "/data.json");
}

}  // namespace

void register_study(CLI::App& app) {
  auto a = std::make_shared<StudyArgs>();
  auto* cmd = app.add_subcommand(
      "study",
      "Models x arms x schemes: cut, calibrate, quantize, compare, doctor, latency; "
      "data.json and a self-contained HTML report");
  add_study_config_flags(cmd, a->flags);
  auto* plan = cmd->add_option("--plan", a->plan, "write the step list (JSON) and stop");
  auto* worker = cmd->add_option("--worker", a->worker,
                                 "i/N: be worker i of N on a shared --out cache, then stop");
  add_number(cmd, "--lease", a->lease, ranges::kLeaseSeconds,
             "seconds a worker's claim lives unrenewed (with --worker)")
      ->capture_default_str()
      ->needs(worker);
  cmd->add_flag("--collect", a->collect, "after workers: latency steps, data.json, index.html")
      ->excludes(plan)
      ->excludes(worker);
  plan->excludes(worker);
  add_ledger_options(cmd, a->ledger);
  // The ledger records a study's results: --plan and --worker have none.
  for (const char* flag : {"--ledger", "--tag"}) {
    plan->excludes(flag);
    worker->excludes(flag);
  }
  cmd->callback([a, cmd] { run_study_cli(*a, *cmd); });
}

}  // namespace edgeq::cli
