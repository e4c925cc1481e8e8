#include "edgeq/study.h"

#include "calib/calibration_images.h"
#include "core/error.h"
#include "core/json_text.h"
#include "study/study_ledger.h"
#include "study/study_options.h"
#include "study/study_run.h"

namespace edgeq {

StudyConfig study_config_from_json(const std::string& json_text_in, StudyConfig base) {
  nlohmann::json j;
  try {
    j = parse_json_text(json_text_in);
  } catch (const nlohmann::json::exception& e) {
    fail("study config: not JSON (", e.what(), ")");
  }
  return study_options_from_json(j, std::move(base));
}

std::string study_config_to_json(const StudyConfig& config) {
  return json_text(study_options_to_json(config), 2);
}

StudyResult study(const StudyConfig& config) {
  check_study_options(config);
  StudyRun r;
  try {
    r = run_study(config);
  } catch (const Cancelled&) {
    throw Cancelled("the finished steps are kept in " + config.out +
                    "/cache (the same call goes on from there); no data.json written");
  }
  write_study(config, r);
  StudyResult out;
  out.out = config.out;
  out.data_json = json_text(r.data, 1);
  out.ledger_json = json_text(study_ledger_report(r.data), 2);
  out.runs = r.data.at("runs").size();
  out.steps = r.steps;
  out.cached = r.cached;
  out.seconds = r.seconds;
  return out;
}

StudyWorkResult study_worker(const StudyConfig& config, const StudyWorkerOptions& worker) {
  check_option("count", worker.count, ranges::kShards);
  check_option("lease_s", worker.lease_s, ranges::kLeaseSeconds);
  check_study_options(config);
  StudyWork w;
  try {
    w = run_study_worker(config, worker.index, worker.count, worker.lease_s);
  } catch (const Cancelled&) {
    throw Cancelled("the finished steps are kept in " + config.out +
                    "/cache and this worker's claims are released (a worker started again goes "
                    "on from there)");
  }
  StudyWorkResult out;
  out.computed = w.computed;
  out.deferred = w.deferred;
  out.passes = w.passes;
  out.seconds = w.seconds;
  return out;
}

StudyWorkerOptions study_worker_from_text(const std::string& text) {
  const Shard s = parse_shard(text);
  StudyWorkerOptions w;
  w.index = s.index;
  w.count = s.count;
  return w;
}

std::string study_plan(const StudyConfig& config) {
  check_study_options(config);
  return json_text(plan_study(config), 1);
}

}  // namespace edgeq
