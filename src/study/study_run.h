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

constexpr int kStudyDataVersion = 1;

struct StudyRun {
  nlohmann::json data;                     // what data.json holds
  std::vector<StudyThumbnail> thumbnails;  // of the first test images, for the report
  size_t steps = 0, cached = 0;
  double seconds = 0;
};

// Runs the study, reporting to o.progress. Writes only under o.out/cache.
StudyRun run_study(const StudyOptions& o);

// Writes OUT/data.json and OUT/index.html (atomically).
void write_study(const StudyOptions& o, const StudyRun& r);

}  // namespace edgeq
