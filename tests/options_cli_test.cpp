// The command line's number options, options out of context and list options (issue 46, items 2
// and 4, and its messages): refused when the command line is parsed, before any work, with one
// line naming the flag and what it accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cli_util.h"
#include "core/option_range.h"
#include "edgeq/files.h"
#include "test_util.h"

namespace edgeq {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::shell_quote;

// One "edgeq: error:" line holding every word of `words`, exit status 1..127, `out` not written.
void expect_usage_error(const std::string& args, const std::vector<std::string>& words,
                        const std::string& out = "") {
  const test::CliResult r = run_cli(args);
  EXPECT_NE(r.exit_code, 0) << args;
  EXPECT_LT(r.exit_code, 128) << args << ": crashed: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  EXPECT_EQ(r.err.rfind("edgeq: error: ", 0), 0u) << args << ": " << r.err;
  for (const std::string& w : words)
    EXPECT_NE(r.err.find(w), std::string::npos) << args << ": " << r.err;
  EXPECT_LT(r.err.size(), 200u) << r.err;  // no 300-digit bound
  if (!out.empty()) {
    EXPECT_FALSE(fs::exists(out)) << out;
  }
}

// --threads 100000 segfaulted run, bench, infer and compare (32768: "libgomp: Thread creation
// failed"); every command with threads or workers refuses a count beyond the machine's bound.
TEST(OptionsCli, ThreadAndWorkerCountsAreBounded) {
  const std::string d = test::temp_dir("opt_threads");
  const std::string m = shell_quote(test::real_model_path());
  const std::string img = shell_quote(test::coco8_pose_dir() + "/images/val");
  const std::string bound = "[0, " + std::to_string(max_threads()) + "]";
  for (const std::string& cmd :
       {"run --model " + m + " --image " + img, "bench --model " + m,
        "infer --model " + m + " --out " + d + "/o",
        "compare --ref " + m + " --test " + m + " --images " + img,
        "calibrate --model " + m + " --images " + img + " --out " + d + "/s",
        "quantize --model " + m + " --stats s --scheme w8a8 --out " + d + "/q.onnx",
        "probe --model " + m + " --images " + img + " --labels l.csv",
        "study --models " + m + " --images " + img + " --test " + img + " --out " + d + "/st"}) {
    expect_usage_error(cmd + " --threads 100000", {"--threads: 100000 is outside " + bound});
  }
  expect_usage_error("bench --model " + m + " --threads 32768", {"--threads: 32768 is outside"});
  expect_usage_error("bench --model " + m + " --threads -1", {"--threads: -1 is outside"});
  expect_usage_error("bench --model " + m + " --workers 100000", {"--workers: 100000 is outside"});
  expect_usage_error(
      "calibrate --model " + m + " --images " + img + " --out " + d + "/s --workers 100000",
      {"--workers: 100000 is outside"}, d + "/s");
  EXPECT_TRUE(fs::is_empty(d));
  // A few more threads than cores still run (the determinism tests use 3 on 2-core machines).
  const test::CliResult ok = run_cli("zoo yolo11n --imgsz 64 -o " + d + "/z.onnx");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const test::CliResult three =
      run_cli("bench --model " + d + "/z.onnx --runs 1 --warmup 0 --threads 3 --workers 3");
  EXPECT_EQ(three.exit_code, 0) << three.err;
}

// -1 and 2^64 wrapped silently into seeds; every count, duration and seed has a range.
TEST(OptionsCli, SeedsCountsAndDurationsHaveRanges) {
  const std::string d = test::temp_dir("opt_ranges");
  const std::string m = shell_quote(test::real_model_path());
  const std::string img = shell_quote(test::coco8_pose_dir() + "/images/val");
  const std::string cal = "calibrate --model " + m + " --images " + img + " --out " + d + "/s";
  expect_usage_error(cal + " --seed -1", {"--seed: -1 is outside [0, 18446744073709551615]"},
                     d + "/s");
  expect_usage_error(cal + " --seed 18446744073709551616",
                     {"--seed: 18446744073709551616 is outside"}, d + "/s");
  expect_usage_error("scenes --out " + d + "/sc --seed 4294967296",
                     {"--seed: 4294967296 is outside [0, 4294967295]"}, d + "/sc");
  expect_usage_error("augment --images " + img + " --out " + d + "/a --seed -1", {"--seed"},
                     d + "/a");
  // --n 0 printed a 300-digit bound; compare --n -1 said "18446744073709551615 is too large".
  expect_usage_error(cal + " --n 0", {"--n: 0 is outside [1, 1000000000]"}, d + "/s");
  expect_usage_error("compare --ref " + m + " --test " + m + " --images " + img + " --n -1",
                     {"--n: -1 is outside [0, 1000000000] (0: all)"});
  // --conf 0.5x said "not in range".
  expect_usage_error("run --model " + m + " --image " + img + " --conf 0.5x",
                     {"--conf: '0.5x' is not a number; expected one in [0, 1]"});
  expect_usage_error("bench --model " + m + " --runs 2.5", {"--runs: '2.5' is not a whole number"});
  expect_usage_error("bench --model " + m + " --warmup 99999999999", {"--warmup"});
  expect_usage_error("doctor --model " + m + " --max-info -3", {"--max-info: -3 is outside"});
  expect_usage_error("zoo yolo11n --imgsz 4096 -o " + d + "/z.onnx",
                     {"--imgsz: 4096 is outside [64, 1280] (a multiple of 32)"}, d + "/z.onnx");
  expect_usage_error("scenes --video " + d + "/v.avi --fps 0", {"--fps: 0 is outside (0, 1000]"},
                     d + "/v.avi");
  expect_usage_error("scenes --video " + d + "/v.avi --size 640x-4",
                     {"--size height: -4 is outside [16, 8192]"}, d + "/v.avi");
  // `study --worker 0/2 --lease inf` (or 1e12) spun forever and its claim blocked every worker.
  const std::string study = "study --models " + m + " --images " + img + " --test " + img +
                            " --out " + d + "/st --worker 0/2";
  expect_usage_error(study + " --lease inf", {"--lease: 'inf' is not a number"}, d + "/st");
  expect_usage_error(study + " --lease 1e12", {"--lease: 1e12 is outside [1, 86400] (seconds)"},
                     d + "/st");
  expect_usage_error(study + " --calib-n -1", {"--calib-n: -1 is outside"}, d + "/st");
  expect_usage_error(study + " --seed -1", {"--seed: -1 is outside"}, d + "/st");
}

// Options that do nothing with the others as given are refused: --percentile without --range
// percentile was ignored.
TEST(OptionsCli, OptionsThatDoNothingInContextAreRefused) {
  const std::string d = test::temp_dir("opt_context");
  const std::string m = shell_quote(test::real_model_path());
  const std::string img = shell_quote(test::coco8_pose_dir() + "/images/val");
  const std::string q =
      "quantize --model " + m + " --stats " + d + "/s.cbor --out " + d + "/q.onnx";
  expect_usage_error(q + " --scheme w8a8 --percentile 99.9",
                     {"--percentile does nothing without range percentile"}, d + "/q.onnx");
  // Given at its default value too: the flag, not the value, is out of place.
  expect_usage_error(q + " --scheme w8a8 --range minmax --percentile 99.99",
                     {"--percentile does nothing"}, d + "/q.onnx");
  expect_usage_error(q + " --scheme w8a8 --auto-n 4", {"--auto-n does nothing without auto"},
                     d + "/q.onnx");
  expect_usage_error(q + " --scheme w8a8 --n 4", {"--n does nothing without weight repair"},
                     d + "/q.onnx");
  expect_usage_error(q + " --scheme w8a8 --images " + img + " --seed 2",
                     {"--seed does nothing without weight repair"}, d + "/q.onnx");
  expect_usage_error(q + " --scheme w8a8 --repair-memory 64", {"--repair-memory does nothing"},
                     d + "/q.onnx");
  expect_usage_error(q + " --scheme w8a8 --encodings-format 0.6.1",
                     {"--encodings-format requires --encodings"}, d + "/q.onnx");
  const std::string doc = "doctor --model " + m + " --json " + d + "/d.json";
  expect_usage_error(doc + " --top-percent 5", {"--top-percent does nothing without sensitivity"},
                     d + "/d.json");
  expect_usage_error(doc + " --mixed-out " + d + "/m.json",
                     {"--mixed-out does nothing without --sensitivity"}, d + "/d.json");
  expect_usage_error(doc + " --max-images 2", {"--max-images does nothing without images"},
                     d + "/d.json");
  expect_usage_error("scenes --out " + d + "/sc --fps 10", {"--fps requires --video"}, d + "/sc");
  expect_usage_error("scenes --out " + d + "/sc --size 64x64", {"--size requires --video"},
                     d + "/sc");
  expect_usage_error("bench --model " + m + " --tag nightly", {"--tag requires --ledger"});
  const std::string study =
      "study --models " + m + " --images " + img + " --test " + img + " --out " + d + "/st";
  expect_usage_error(study + " --lease 30", {"--lease requires --worker"}, d + "/st");
  expect_usage_error(study + " --worker 0/2 --ledger " + d + "/l.sqlite",
                     {"--worker excludes --ledger"}, d + "/st");
  expect_usage_error(study + " --plan " + d + "/p.json --ledger " + d + "/l.sqlite",
                     {"--plan excludes --ledger"}, d + "/p.json");
  expect_usage_error(study + " --val " + img, {"--val does nothing without a w8a8-autoP scheme"},
                     d + "/st");
  expect_usage_error(study + " --schemes w8a8 --weight-repair",
                     {"--weight-repair does nothing without a w8a16 scheme"}, d + "/st");
  expect_usage_error(study + " --probe-folds 3",
                     {"--probe-folds does nothing without probe_labels"}, d + "/st");
  EXPECT_FALSE(fs::exists(d + "/l.sqlite"));
}

// A choice (edgeq/choices.h) given a name it does not have is refused when the command line is
// parsed, before any image is read (the images are a folder that does not exist or holds an
// unreadable file): one line naming the flag and every accepted value. Any case is accepted.
TEST(OptionsCli, BadChoicesAreRefusedBeforeAnyImageIsRead) {
  const std::string d = test::temp_dir("opt_choices");
  const std::string m = shell_quote(test::real_model_path());
  fs::create_directories(d + "/broken");
  write_file_atomic(d + "/broken/a.jpg", "not a jpeg");
  for (const std::string& img : {d + "/missing", d + "/broken"}) {
    const std::string q = "quantize --model " + m + " --stats " + d + "/s.cbor --images " +
                          shell_quote(img) + " --out " + d + "/q.onnx";
    expect_usage_error(q + " --scheme w4a8", {"--scheme: 'w4a8' is not one of w8a8, w8a16"},
                       d + "/q.onnx");
    const std::string w8a16 = q + " --scheme w8a16";
    expect_usage_error(w8a16 + " --range kl",
                       {"--range: 'kl' is not one of minmax, percentile, entropy, mse"},
                       d + "/q.onnx");
    expect_usage_error(w8a16 + " --placement gpu",
                       {"--placement: 'gpu' is not one of ort, qnn, cpu"}, d + "/q.onnx");
    expect_usage_error(w8a16 + " --qdq16 opset20",
                       {"--qdq16: 'opset20' is not one of auto, contrib, opset21"}, d + "/q.onnx");
    expect_usage_error(w8a16 + " --quantize-io inputs",
                       {"--quantize-io: 'inputs' is not one of none, in, out, both"},
                       d + "/q.onnx");
    const std::string study = "study --models " + m + " --images " + shell_quote(img) + " --test " +
                              shell_quote(img) + " --out " + d + "/st";
    expect_usage_error(study + " --range max",
                       {"--range: 'max' is not one of minmax, percentile, entropy, mse"},
                       d + "/st");
    expect_usage_error(study + " --placement gpu",
                       {"--placement: 'gpu' is not one of auto, ort, qnn, cpu"}, d + "/st");
    write_file_atomic(d + "/study.json", R"({"range": "max"})");
    expect_usage_error(
        study + " --config " + d + "/study.json",
        {"study config: range: 'max' is not one of minmax, percentile, entropy, mse"}, d + "/st");
    write_file_atomic(d + "/study.json", R"({"placement": "gpu"})");
    expect_usage_error(study + " --config " + d + "/study.json",
                       {"study config: placement: 'gpu' is not one of auto, ort, qnn, cpu"},
                       d + "/st");
  }
  // Any case names the value: refused here for the missing statistics, past the choices.
  const test::CliResult r = run_cli("quantize --model " + m + " --stats " + d +
                                    "/none.cbor --scheme W8A8 --range MSE --placement QNN "
                                    "--qdq16 Contrib --quantize-io Both --out " +
                                    d + "/q.onnx");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.err.find("is not one of"), std::string::npos) << r.err;
  EXPECT_TRUE(r.err.find("none.cbor") != std::string::npos ||
              r.err.find("--stats") != std::string::npos)
      << r.err;
}

// A list option names each thing once: `study --schemes w8a8,w8a8` ran the scheme twice.
TEST(OptionsCli, DuplicatesInListOptionsAreRefused) {
  const std::string d = test::temp_dir("opt_dups");
  const std::string m = shell_quote(test::real_model_path());
  const std::string img = shell_quote(test::coco8_pose_dir() + "/images/val");
  expect_usage_error("study --models " + m + " --images " + img + " --test " + img + " --out " + d +
                         "/st --schemes w8a8,w8a8",
                     {"schemes: 'w8a8' is given twice"}, d + "/st");
  expect_usage_error("study --models " + m + " --images " + img + " --test " + img + " --out " + d +
                         "/st --arms A,B,A",
                     {"'A'"}, d + "/st");
  expect_usage_error("cut --model " + m + " --arm A --taps 4,6,4 --out " + d + "/c.onnx",
                     {"--taps: '4' is given twice"}, d + "/c.onnx");
  expect_usage_error("augment --images " + img + " --out " + d + "/a --kinds flip,crop,flip",
                     {"--kinds: 'flip' is given twice"}, d + "/a");
  expect_usage_error("quantize --model " + m +
                         " --stats s --scheme w8a8 --a16 decode,decode --out " + d + "/q.onnx",
                     {"a16: 'decode' is given twice"}, d + "/q.onnx");
  expect_usage_error("ledger check " + d +
                         "/l.sqlite --baseline a --candidate b --max-drop "
                         "match_rate=0.01,match_rate=0.1",
                     {"--max-drop: match_rate is limited twice"});
}

// `ledger check --max-drop latency_ms=1` called a 24 ms improvement a regression: a limit the
// wrong way for its metric is refused, before the ledger is read; `ledger list /dev/zero` said
// "not found".
TEST(OptionsCli, LedgerLimitsAndFilesAreJudgedRight) {
  const std::string d = test::temp_dir("opt_ledger");
  expect_usage_error("ledger check " + d +
                         "/absent.sqlite --baseline a --candidate b "
                         "--max-drop latency_ms=1 --max-rise box_px_mean=0.1",
                     {"--max-drop: latency_ms is better lower: a drop is an improvement; limit it "
                      "with --max-rise"});
  expect_usage_error("ledger check " + d +
                         "/absent.sqlite --baseline a --candidate b "
                         "--max-drop match_rate=0.01 --max-rise match_rate=0.01",
                     {"--max-rise: match_rate is better higher"});
  expect_usage_error("ledger list /dev/zero", {"ledger /dev/zero is not a regular file"});
  expect_usage_error("ledger list " + d, {"is a folder"});
  expect_usage_error("ledger list " + d + "/absent.sqlite", {"ledger not found"});
}

}  // namespace
}  // namespace edgeq
