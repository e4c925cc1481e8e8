// ExecOptions (edgeq/exec_options.h): the exec / emulate / threads of bench, compare, Session,
// detect and infer, checked by one validate(); and the run vocabulary's other choices
// (pipeline_mode, arm) refused before any image is read, from C++ and from the command line.
#include "edgeq/exec_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cli_util.h"
#include "edgeq/edgeq.h"
#include "edgeq/option_range.h"
#include "test_util.h"

namespace edgeq {
namespace {

const std::string kNeedsInt8 = "emulate avx2 needs exec int8 (simulate is the exact QDQ formula)";

TEST(ExecOptions, ValidateIsTheOneRule) {
  ExecOptions o;
  EXPECT_EQ(test::error_of([&] { validate(o); }), "");
  o.emulate = Int8Emulation::kAvx2;
  EXPECT_EQ(test::error_of([&] { validate(o); }), kNeedsInt8);
  o.mode = ExecMode::kInt8;
  EXPECT_EQ(test::error_of([&] { validate(o); }), "");
  o.threads = -1;
  EXPECT_EQ(test::error_of([&] { validate(o); }).rfind("threads: -1 is outside [0, ", 0), 0u);
  o.threads = max_threads() + 1;
  EXPECT_NE(test::error_of([&] { validate(o); }).find("is outside"), std::string::npos);
  o.threads = max_threads();
  EXPECT_EQ(test::error_of([&] { validate(o); }), "");
  o.mode = static_cast<ExecMode>(7);  // no name stands for it
  EXPECT_EQ(test::error_of([&] { validate(o); }), "exec: no value number 7 (2 values)");
}

TEST(ExecOptions, NamesParseAsEveryFrontEndGivesThem) {
  EXPECT_EQ(parse<ExecMode>("INT8"), ExecMode::kInt8);
  EXPECT_EQ(name(ExecMode::kSimulate), "simulate");
  EXPECT_EQ(parse<Int8Emulation>("avx2"), Int8Emulation::kAvx2);
  EXPECT_EQ(test::error_of([] { parse<ExecMode>("fast"); }),
            "exec: 'fast' is not one of simulate, int8");
  EXPECT_EQ(test::error_of([] { parse<Int8Emulation>("avx3"); }),
            "emulate: 'avx3' is not one of none, avx2");
  EXPECT_EQ(test::error_of([] { parse<PipelineMode>("fast"); }),
            "pipeline_mode: 'fast' is not one of auto, threads");
}

// Every public call that runs a model refuses its exec options before any image or input is read
// (the images named here do not exist: the message is the option's, not theirs).
TEST(ExecOptions, EveryCallRefusesBeforeAnyImage) {
  const Model m = Model::load(test::real_model_path());
  const std::string none = test::temp_dir("execopts") + "/no_such_images";
  ExecOptions avx2;
  avx2.emulate = Int8Emulation::kAvx2;

  SessionOptions s;
  s.exec = avx2;
  EXPECT_EQ(test::error_of([&] { Session(m, s); }), kNeedsInt8);
  BenchOptions b;
  b.exec = avx2;
  EXPECT_EQ(test::error_of([&] { bench(m, b); }), kNeedsInt8);
  CompareOptions c;
  c.exec = avx2;
  EXPECT_EQ(test::error_of([&] { compare(m, m, none, c); }), kNeedsInt8);
  InferOptions i;
  i.exec = avx2;
  EXPECT_EQ(test::error_of([&] { infer(m, {}, i); }), kNeedsInt8);
  DetectOptions d;
  d.session.exec = avx2;
  EXPECT_EQ(test::error_of([&] { detect(m, none, d); }), kNeedsInt8);
  d = {};
  d.session.exec.threads = -1;
  EXPECT_EQ(test::error_of([&] { detect(m, none, d); }).rfind("threads: -1 is outside", 0), 0u);
  d = {};
  d.pipeline = true;
  d.pipeline_mode = static_cast<PipelineMode>(5);
  EXPECT_EQ(test::error_of([&] { detect(m, none, d); }),
            "pipeline_mode: no value number 5 (2 values)");
  // The same source with good options: the source's own error (so the ones above came first).
  EXPECT_NE(test::error_of([&] { detect(m, none, {}); }).find("no_such_images"), std::string::npos);
}

void expect_refused(const test::CliResult& r, const std::string& needle) {
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(r.exit_code, 128) << "crashed: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no_such_images"), std::string::npos) << r.err;
}

// The command line: a bad --exec, --emulate, --pipeline-mode or --arm, and an --emulate without
// --exec int8, each refused in one line naming the option, before the images (missing) are read.
TEST(ExecOptionsCli, ChoicesRefusedBeforeAnyImage) {
  const std::string model = test::shell_quote(test::real_model_path());
  const std::string dir = test::temp_dir("execopts_cli");
  const std::string none = test::shell_quote(dir + "/no_such_images");
  const std::string run = "run --model " + model + " --image " + none;
  expect_refused(test::run_cli(run + " --exec fast"),
                 "--exec: 'fast' is not one of simulate, int8");
  expect_refused(test::run_cli(run + " --emulate avx3"),
                 "--emulate: 'avx3' is not one of none, avx2");
  expect_refused(test::run_cli(run + " --emulate avx2"), kNeedsInt8);
  expect_refused(test::run_cli(run + " --pipeline --pipeline-mode fast"),
                 "--pipeline-mode: 'fast' is not one of auto, threads");
  const std::string compare = "compare --ref " + model + " --test " + model + " --images " + none;
  expect_refused(test::run_cli(compare + " --emulate avx3"),
                 "--emulate: 'avx3' is not one of none, avx2");
  expect_refused(test::run_cli(compare + " --exec fast"),
                 "--exec: 'fast' is not one of simulate, int8");
  expect_refused(test::run_cli("infer --model " + model + " --image " + none + "/a.jpg --out " +
                               test::shell_quote(dir + "/out") + " --emulate avx3"),
                 "--emulate: 'avx3' is not one of none, avx2");
  expect_refused(test::run_cli("bench --model " + model + " --emulate avx2"), kNeedsInt8);
  expect_refused(test::run_cli("cut --model " + model + " --arm D --out " +
                               test::shell_quote(dir + "/d.onnx")),
                 "--arm: 'D' is not one of A, B, C, head");
  // Any case, as before (and for every choice on the command line now).
  const test::CliResult upper = test::run_cli(run + " --exec INT8 --emulate AVX2");
  EXPECT_EQ(upper.err.find("is not one of"), std::string::npos) << upper.err;
  const test::CliResult ok = test::run_cli("cut --model " + model + " --arm c --out " +
                                           test::shell_quote(dir + "/c.onnx"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

}  // namespace
}  // namespace edgeq
