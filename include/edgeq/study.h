// The n-vs-s study: for every (model, arm, scheme) cut the model into its arm, calibrate (once per
// model), quantize, compare against the arm's own FP32, doctor and latency; every step cached in
// OUT/cache under a key of what it reads, then OUT/data.json (data/study.schema.json) and the
// self-contained OUT/index.html. What `edgeq study` runs.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "edgeq/choices.h"
#include "edgeq/progress.h"

namespace edgeq {

// A file a call reads or writes, by its role (core/io_guard.h), and an option set where it does
// nothing (core/option_range.h): what a front end checks before the study runs.
struct RoleFile;
struct InertOption;

struct StudyConfig {
  std::vector<std::string> models;  // FP32 ONNX files (named by file name)
  std::string images;               // calibration images (folder, list file or image)
  std::string test;                 // test images: compare, thumbnails, probes
  std::string labels;               // YOLO labels of the test images ("": labels/ beside images/)
  std::string probe_labels;         // CSV image -> class or value: task probes on arm A
  std::string val;                  // the mixed-precision search's images ("": `images`)
  // "w8a16", "w8a8", or "w8a8-autoP" (W8A8 with the mixed-precision search, P % at 16 bit).
  std::vector<std::string> schemes{"w8a16", "w8a8"};
  std::vector<std::string> arms{"A", "B", "C"};
  std::string target = "qnn-htp";  // doctor's op table: qnn-htp | rknn | cpu | openvino
  // nullopt ("auto" in the JSON form and on the command line): qnn for qnn-htp, cpu for
  // cpu/openvino, else ort.
  std::optional<Placement> placement;
  RangeMethod range = RangeMethod::kMinMax;  // minmax | percentile | entropy | mse
  std::string out;                           // folder for data.json, index.html and cache/
  size_t calib_n = 128;                      // calibration images sampled
  uint64_t seed = 0;                         // calibration sampling seed
  int histogram_stride = 64;
  int test_n = 0;      // test images used (0: all)
  int auto_n = 8;      // the search's images
  int bench_runs = 5;  // timed runs per latency (after bench_warmup)
  int bench_warmup = 1;
  int threads = 0;     // 0: all cores
  int thumbnails = 6;  // test images drawn in the report
  int probe_folds = 4;
  double probe_l2 = 0.1;
  // Weight repair as `quantize` with images runs it (GPTQ under W8A16), on the calibration
  // sample (calib_n, seed).
  bool weight_repair = false;
  // Each finished step as a kMessage line of task "study" ("[3/12] yolo11n-pose arm A ...: 1.2s
  // elapsed ..., ETA ..."), a kStep before each step, the search's and weight repair's own events,
  // warnings (an unreadable image, a corrupt cache entry). Returning false stops the study
  // (edgeq::Cancelled); the steps already cached stay, so the same call goes on from there. Not
  // part of the configuration (not in its JSON form).
  ProgressCallback progress;
};

struct StudyResult {
  std::string out;        // the folder holding data.json, index.html and cache/
  std::string data_json;  // what OUT/data.json holds
  // The study's numbers as the regression ledger records them (kind "study", edgeq/ledger.h):
  // counts, the worst detection match / mAP / pixel errors over the runs, each run's headline.
  std::string ledger_json;
  size_t runs = 0;  // (model, arm, scheme) runs reported
  size_t steps = 0, cached = 0;
  double seconds = 0;
};

// For a front end's own checks before the study runs (its config or plan file against the
// study's files, its flags against the options that do nothing); study() checks them too.
// What the study reads (models, image sets, label files).
std::vector<RoleFile> study_inputs(const StudyConfig& config);
// The folder `out` with the files the study writes there (data.json, index.html, cache/).
RoleFile study_out_folder(const StudyConfig& config);
// val and auto_n without a w8a8-autoP scheme, weight_repair without a w8a16 scheme, probe_folds
// and probe_l2 without probe_labels (by their JSON keys); study() refuses those set.
std::vector<InertOption> inert_study_options(const StudyConfig& config);

// The JSON form of a configuration (study.json: the fields above by name; "models", "schemes" and
// "arms" take an array or a comma-separated string), read over `base`. Throws edgeq::Error naming
// an unknown key or a wrong type.
StudyConfig study_config_from_json(const std::string& json_text, StudyConfig base = {});
std::string study_config_to_json(const StudyConfig& config);

// Checks the configuration (files exist, schemes, arms, numbers), runs the study and writes
// OUT/data.json and OUT/index.html (atomically). Throws edgeq::Error for a bad configuration or a
// failed step, edgeq::Cancelled when the progress callback answers false.
StudyResult study(const StudyConfig& config);

// Scale-out: several processes (pods of a Kubernetes Indexed Job, tasks of a Slurm array, or
// processes on one machine) share OUT/cache on a POSIX file system with atomic rename and
// exclusive create (a local disk, NFS, a PVC). Each runs study_worker with its index; each step
// is claimed by one worker at a time (a claim file whose lease a live worker renews; an expired
// claim, or one left by an earlier process of the same index, is taken over), so two workers
// never compute the same entry, and a killed worker's steps are taken over. Latency steps are
// left to the collecting run: study() afterwards measures them alone on the machine and writes
// data.json and index.html; it computes anything still missing itself.
struct StudyWorkerOptions {
  int index = 0;        // this worker, 0 <= index < count
  int count = 1;        // workers in all
  double lease_s = 30;  // a claim not renewed for this long is taken over (>= 1)
};
struct StudyWorkResult {
  size_t computed = 0;  // steps this worker computed
  size_t deferred = 0;  // latency steps left to the collecting run
  size_t passes = 0;    // passes over the steps (a pass that met a held step waits, then goes on)
  double seconds = 0;
};
// "i/N" (0 <= i < N) -> worker i of N (lease_s as default). Throws one line quoting `text` for
// any other form or an i or N out of range.
StudyWorkerOptions study_worker_from_text(const std::string& text);
// Returns when every step but the latency ones is in the cache.
StudyWorkResult study_worker(const StudyConfig& config, const StudyWorkerOptions& worker);
// The study's steps as JSON: {"steps": [{"id", "kind", "what", "key", "reads": [ids], "cached"}]}
// (a step's id names its cache entry). Computes only the cuts, whose files later keys read.
std::string study_plan(const StudyConfig& config);

}  // namespace edgeq
