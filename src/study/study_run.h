// `edgeq study`: for every (model, arm, scheme) cut, calibrate (once per model), quantize,
// compare against the arm's own FP32, doctor and latency, each step cached in OUT/cache under a
// key of what it reads (study/study_cache.h); then OUT/data.json (data/study.schema.json) and
// OUT/index.html (study/study_report.h). One progress line per step, with an ETA.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "study/study_options.h"
#include "study/study_thumbnails.h"

namespace edgeq {

// 2: the latency entries are the public bench's JSON (edgeq/bench.h: weight_bytes,
// input_bytes_per_frame, output_bytes_per_frame, ...).
constexpr int kStudyDataVersion = 3;

struct StudyRun {
  nlohmann::json data;                     // what data.json holds
  std::vector<StudyThumbnail> thumbnails;  // of the first test images, for the report
  size_t steps = 0, cached = 0;
  double seconds = 0;
};

// Runs the study, reporting to o.progress. Writes only under o.out/cache.
StudyRun run_study(const StudyOptions& o);

// How a runner takes part: the whole study (also the collecting run after workers), a plan, or
// worker i of N sharing o.out/cache with the others.
struct StudyRole {
  enum Kind { kAll, kPlan, kWorker } kind = kAll;
  int index = 0, count = 1;
  double lease_s = 0;  // kWorker: run_study_worker's (the default is StudyWorkerOptions::lease_s)
};
struct StudyWork {
  size_t computed = 0;                        // steps this worker computed
  size_t cached = 0, busy = 0, deferred = 0;  // in its last pass
  size_t passes = 0;
  double seconds = 0;
};
// Worker `index` of `count`: passes over the study's steps, claiming and computing every step
// no live worker holds (study/study_claims.h), until every step but the latency ones is cached.
StudyWork run_study_worker(const StudyOptions& o, int index, int count, double lease_s);
// Every step (id, kind, what it is, cache key, the ids of the steps it reads, cached or not);
// computes only the cuts, whose files the later keys are made of.
nlohmann::json plan_study(const StudyOptions& o);

// Writes OUT/data.json and OUT/index.html (atomically).
void write_study(const StudyOptions& o, const StudyRun& r);

}  // namespace edgeq
