// The steps of one study run (model, arm, scheme), each a public call (include/edgeq) whose
// result is JSON for the study's cache and data.json: quantize (with the mixed-precision search
// for w8a8-autoP), compare against the arm's own FP32, doctor (findings counted by severity) and
// latency (the public bench's JSON).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "edgeq/calibrate.h"
#include "edgeq/choices.h"
#include "ir/graph.h"
#include "study/study_options.h"

namespace edgeq {

// Bytes of the model's stored constants (initializers at their own types: int8 weights of a QDQ
// model count one byte each, float ones four).
size_t initializer_bytes(const Graph& g);

// Quantizes the arm file as `edgeq quantize --scheme BASE --range R --placement P` does, through
// the same library call (edgeq::quantize): W8A8 keeps a decode tail at 16 bit; w8a8-autoP searches
// on the validation images; with o.weight_repair, weight repair on the calibration images (GPTQ
// under W8A16). Writes `out_path`; returns the encoding counts, weight bytes and the search's
// summary.
nlohmann::json quantize_step(const std::string& arm_path, const CalibrationStats& arm_stats,
                             const StudyScheme& scheme, const StudyOptions& o,
                             const std::string& out_path);

// compare's report (edgeq::compare) as the study keeps it: per output rel_l2 / cosine / max_abs,
// per tap layer (taps named tap_avgN / tap_maxN), detection consistency and mAP when the arm has
// a YOLO head, and the detections of the first `keep_detections` images.
nlohmann::json compare_step(const std::string& fp32_path, const std::string& q_path,
                            const std::string& test, const std::string& labels, int test_n,
                            int keep_detections, int threads);

// doctor (edgeq::doctor) on the quantized arm with the arm's statistics: counts by severity and
// the most severe findings (at most `top`).
nlohmann::json doctor_step(const std::string& q_path, const CalibrationStats& arm_stats,
                           const std::string& target, size_t top = 5);

// The public bench's JSON (edgeq::bench, BenchReport::json) for the model file on edgeq's
// executor (simulate or int8), "model" being the file's name. With `io_stats` (a QDQ model and
// its arm's statistics), also "quantized_io": the same for its quantized-I/O variant
// (edgeq::quantize_model_io, both ends).
nlohmann::json bench_step(const std::string& path, ExecMode exec, int runs, int warmup, int threads,
                          const CalibrationStats* io_stats = nullptr);

}  // namespace edgeq
