// --ledger through the program: calibrate, quantize, compare, bench and run each add a run with
// their numbers; `ledger list | show | diff`; `ledger check` fails W8A8 against W8A16 on
// coco8-pose and passes two identical runs; bad ledgers and unknown tags are one line each.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "report/sqlite_db.h"
#include "test_util.h"

namespace edgeq {
namespace {

std::string q(const std::string& s) {
  return "'" + s + "'";
}

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

int64_t count(const std::string& ledger, const std::string& sql) {
  SqliteDb db(ledger, SqliteDb::Mode::kReadOnly);
  SqliteStatement s(db, sql);
  EXPECT_TRUE(s.step());
  return s.integer(0);
}

TEST(LedgerCli, EveryCommandAddsItsRun) {
  const std::string d = test::temp_dir("ledger_cli");
  const std::string model = d + "/zoo.onnx", images = d + "/scenes", l = d + "/l.sqlite";
  ASSERT_EQ(test::run_cli("zoo yolo11n-pose -o " + q(model)).exit_code, 0);
  ASSERT_EQ(test::run_cli("scenes --out " + q(images) + " --n 3").exit_code, 0);
  const std::string led = " --ledger " + q(l) + " --tag zoo";
  auto r = test::run_cli("calibrate --model " + q(model) + " --images " + q(images) + " --out " +
                         q(d + "/s.cbor") + led);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ledger: recorded run 1 (calibrate) tagged 'zoo'"), std::string::npos)
      << r.err;
  r = test::run_cli("quantize --model " + q(model) + " --stats " + q(d + "/s.cbor") +
                    " --scheme w8a16 --out " + q(d + "/q.onnx") + led);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli("compare --ref " + q(model) + " --test " + q(d + "/q.onnx") + " --images " +
                    q(images) + " --quiet --json " + q(d + "/c.json") + led);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli("bench --model " + q(d + "/q.onnx") + " --runs 2 --warmup 0" + led);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli("run --model " + q(model) + " --image " + q(images) + " --pipeline" + led);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  EXPECT_EQ(count(l, "SELECT count(*) FROM runs WHERE tag = 'zoo'"), 5);
  for (const char* t :
       {"calibrate_runs", "quantize_runs", "compare_runs", "bench_runs", "run_runs"})
    EXPECT_EQ(count(l, std::string("SELECT count(*) FROM ") + t), 1) << t;
  EXPECT_EQ(count(l,
                  "SELECT count(*) FROM compare_runs WHERE match_rate >= 0 AND "
                  "box_px_mean >= 0"),
            1);
  EXPECT_EQ(count(l, "SELECT count(*) FROM bench_runs WHERE latency_ms > 0"), 1);
  EXPECT_EQ(count(l, "SELECT count(*) FROM run_runs WHERE frames = 3 AND frames_per_s > 0"), 1);
  EXPECT_EQ(count(l, "SELECT count(*) FROM calibrate_runs WHERE images = 3"), 1);
  EXPECT_EQ(count(l, "SELECT count(*) FROM quantize_runs WHERE activations_16bit > 0"), 1);
  // Hashes: the model and what the run wrote.
  const std::string model_sha = sha256_hex(read_file(model));
  EXPECT_EQ(count(l, "SELECT count(*) FROM runs WHERE kind = 'calibrate' AND model_sha256 = '" +
                         model_sha + "' AND output_sha256 = '" +
                         sha256_hex(read_file(d + "/s.cbor")) + "'"),
            1);
  EXPECT_EQ(count(l, "SELECT count(*) FROM runs WHERE kind = 'quantize' AND output_sha256 = '" +
                         sha256_hex(read_file(d + "/q.onnx")) + "'"),
            1);
  EXPECT_EQ(count(l,
                  "SELECT count(*) FROM runs WHERE kind = 'quantize' AND "
                  "json_extract(options, '$.scheme') = 'w8a16' AND command_line LIKE "
                  "'%quantize --model%'"),
            1);

  r = test::run_cli("ledger list " + q(l));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* kind : {"calibrate", "quantize", "compare", "bench", "run"})
    EXPECT_NE(r.out.find(std::string(" ") + kind + " "), std::string::npos) << kind << r.out;
  EXPECT_NE(r.out.find("5 run(s)"), std::string::npos) << r.out;
  r = test::run_cli("ledger show " + q(l) + " 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("match_rate"), std::string::npos) << r.out;
  r = test::run_cli("ledger diff " + q(l) + " zoo zoo");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("latency_ms"), std::string::npos) << r.out;
}

TEST(LedgerCli, BadLedgerAndUnknownTagAreOneLine) {
  const std::string d = test::temp_dir("ledger_bad");
  write_file_atomic(d + "/notes.sqlite",
                    "these are my notes, not a database\n" + std::string(2000, '.'));
  auto r = test::run_cli("calibrate --model " + q(d + "/none.onnx") + " --images " + q(d) +
                         " --out " + q(d + "/s.cbor") + " --ledger " + q(d + "/notes.sqlite"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is not an SQLite database"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(d + "/s.cbor"));
  r = test::run_cli("ledger list " + q(d + "/notes.sqlite"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  r = test::run_cli("ledger list " + q(d + "/absent.sqlite"));
  EXPECT_NE(r.err.find("ledger not found"), std::string::npos) << r.err;

  // A ledger with one tagged run, checked against a tag it does not have.
  const std::string l = d + "/l.sqlite", model = d + "/zoo.onnx";
  ASSERT_EQ(test::run_cli("zoo yolo11n-pose -o " + q(model)).exit_code, 0);
  r = test::run_cli("bench --model " + q(model) + " --runs 1 --warmup 0 --ledger " + q(l) +
                    " --tag base");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli("ledger check " + q(l) + " --baseline base --candidate nightly");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no run tagged 'nightly' (tags: base)"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  r = test::run_cli("ledger check " + q(l) + " --baseline base --candidate base --max-rise x");
  EXPECT_NE(r.err.find("--max-rise"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

// The real yolo11n-pose: W8A16 and W8A8 compared with FP32 on coco8-pose (8 labelled photos);
// the W8A8 run must fail the default gate against W8A16, and a second identical W8A16 run pass.
TEST(LedgerCli, CheckFailsW8A8AgainstW8A16AndPassesIdenticalRuns) {
  EDGEQ_REQUIRE_SHARED();
  if (test::coco8_pose_dir().empty()) GTEST_SKIP() << "skipped: coco8-pose is not present";
  const std::string d = test::temp_dir("ledger_gate");
  const std::string model = test::real_model_path(), images = test::coco8_pose_dir() + "/images";
  const std::string l = d + "/l.sqlite";
  ASSERT_EQ(test::run_cli("calibrate --model " + q(model) + " --images " + q(images) +
                          " --n 8 --out " + q(d + "/s.cbor"))
                .exit_code,
            0);
  for (const char* scheme : {"w8a16", "w8a8"}) {
    auto r = test::run_cli("quantize --model " + q(model) + " --stats " + q(d + "/s.cbor") +
                           " --scheme " + scheme + " --out " + q(d + "/" + scheme + ".onnx"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto compare = [&](const std::string& scheme, const std::string& tag) {
    auto r =
        test::run_cli("compare --ref " + q(model) + " --test " + q(d + "/" + scheme + ".onnx") +
                      " --images " + q(images) + " --quiet --ledger " + q(l) + " --tag " + tag);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  };
  compare("w8a16", "w8a16");
  compare("w8a8", "w8a8");
  compare("w8a16", "w8a16-again");

  auto fail = test::run_cli("ledger check " + q(l) + " --baseline w8a16 --candidate w8a8");
  std::printf("%s", fail.out.c_str());
  EXPECT_EQ(fail.exit_code, 1) << fail.err;
  EXPECT_NE(fail.out.find("REGRESSED"), std::string::npos);
  auto pass = test::run_cli("ledger check " + q(l) + " --baseline w8a16 --candidate w8a16-again");
  std::printf("%s", pass.out.c_str());
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  EXPECT_NE(pass.out.find("0 of "), std::string::npos) << pass.out;
}

}  // namespace
}  // namespace edgeq
