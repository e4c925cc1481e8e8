// --ledger through the program: calibrate, quantize, compare, bench and run each add a run with
// their numbers; `ledger list | show | diff`; `ledger check` fails W8A8 against W8A16 on
// coco8-pose and passes two identical runs; bad ledgers and unknown tags are one line each.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "ledger/ledger.h"
#include "ledger/sqlite_db.h"
#include "test_util.h"

namespace edgeq {
namespace {

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
  ASSERT_EQ(test::run_cli("zoo yolo11n-pose -o " + test::shell_quote(model)).exit_code, 0);
  ASSERT_EQ(test::run_cli("scenes --out " + test::shell_quote(images) + " --n 3").exit_code, 0);
  const std::string led = " --ledger " + test::shell_quote(l) + " --tag zoo";
  auto r =
      test::run_cli("calibrate --model " + test::shell_quote(model) + " --images " +
                    test::shell_quote(images) + " --out " + test::shell_quote(d + "/s.cbor") + led);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("ledger: recorded run 1 (calibrate) tagged 'zoo'"), std::string::npos)
      << r.err;
  r = test::run_cli("quantize --model " + test::shell_quote(model) + " --stats " +
                    test::shell_quote(d + "/s.cbor") + " --scheme w8a16 --out " +
                    test::shell_quote(d + "/q.onnx") + led);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli("compare --ref " + test::shell_quote(model) + " --test " +
                    test::shell_quote(d + "/q.onnx") + " --images " + test::shell_quote(images) +
                    " --quiet --json " + test::shell_quote(d + "/c.json") + led);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli("bench --model " + test::shell_quote(d + "/q.onnx") + " --runs 2 --warmup 0" +
                    led);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli("run --model " + test::shell_quote(model) + " --image " +
                    test::shell_quote(images) + " --pipeline" + led);
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

  r = test::run_cli("ledger list " + test::shell_quote(l));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* kind : {"calibrate", "quantize", "compare", "bench", "run"})
    EXPECT_NE(r.out.find(std::string(" ") + kind + " "), std::string::npos) << kind << r.out;
  EXPECT_NE(r.out.find("5 run(s)"), std::string::npos) << r.out;
  r = test::run_cli("ledger show " + test::shell_quote(l) + " @3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("match_rate"), std::string::npos) << r.out;
  r = test::run_cli("ledger diff " + test::shell_quote(l) + " zoo zoo");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("latency_ms"), std::string::npos) << r.out;
}

TEST(LedgerCli, BadLedgerAndUnknownTagAreOneLine) {
  const std::string d = test::temp_dir("ledger_bad");
  write_file_atomic(d + "/notes.sqlite",
                    "these are my notes, not a database\n" + std::string(2000, '.'));
  auto r = test::run_cli("calibrate --model " + test::shell_quote(d + "/none.onnx") + " --images " +
                         test::shell_quote(d) + " --out " + test::shell_quote(d + "/s.cbor") +
                         " --ledger " + test::shell_quote(d + "/notes.sqlite"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is not an SQLite database"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(d + "/s.cbor"));
  r = test::run_cli("ledger list " + test::shell_quote(d + "/notes.sqlite"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  r = test::run_cli("ledger list " + test::shell_quote(d + "/absent.sqlite"));
  EXPECT_NE(r.err.find("ledger not found"), std::string::npos) << r.err;

  // A ledger with one tagged run, checked against a tag it does not have.
  const std::string l = d + "/l.sqlite", model = d + "/zoo.onnx";
  ASSERT_EQ(test::run_cli("zoo yolo11n-pose -o " + test::shell_quote(model)).exit_code, 0);
  r = test::run_cli("bench --model " + test::shell_quote(model) + " --runs 1 --warmup 0 --ledger " +
                    test::shell_quote(l) + " --tag base");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = test::run_cli("ledger check " + test::shell_quote(l) +
                    " --baseline base --candidate nightly");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no run tagged 'nightly' (tags: base)"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  r = test::run_cli("ledger check " + test::shell_quote(l) +
                    " --baseline base --candidate base --max-rise x");
  EXPECT_NE(r.err.find("--max-rise: expected METRIC=AMOUNT"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;

  // Tags that look like numbers are tags (issue 27): run 1 is tagged base, run 2 "1", run 3 "2";
  // run ids are written @N.
  for (const char* tag : {"1", "2"}) {
    r = test::run_cli("bench --model " + test::shell_quote(model) +
                      " --runs 1 --warmup 0 --ledger " + test::shell_quote(l) + " --tag " + tag);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  r = test::run_cli("ledger show " + test::shell_quote(l) + " 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("run 3 (bench), tag 2\n"), std::string::npos) << r.out;
  r = test::run_cli("ledger show " + test::shell_quote(l) + " @2");
  EXPECT_NE(r.out.find("run 2 (bench), tag 1\n"), std::string::npos) << r.out;
  r = test::run_cli("ledger check " + test::shell_quote(l) + " --baseline 1 --candidate 2");
  EXPECT_NE(r.out.find("latency_ms"), std::string::npos) << r.out << r.err;
  for (const std::string& bad :
       {"show '" + l + "' 1041", "show '" + l + "' @99999999999999999999", "show '" + l + "' @x",
        "diff '" + l + "' @1 base", "show '" + l + "' @7"}) {
    r = test::run_cli("ledger " + bad);
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_EQ(lines(r.err), 1u) << bad << ": " << r.err;
    EXPECT_EQ(r.err.find("stoll"), std::string::npos) << r.err;
  }
  r = test::run_cli("bench --model " + test::shell_quote(model) + " --runs 1 --ledger " +
                    test::shell_quote(l) + " --tag @3");
  EXPECT_NE(r.err.find("cannot start with @"), std::string::npos) << r.err;
}

// A misspelt limit name would pass every gate: it is an error naming the metrics a ledger records.
// A damaged schema version is one clear line (it was "stoi"). A ledger file that may not be
// written (a read-only folder or file system) is read as immutable: listing it works.
TEST(LedgerCli, UnknownLimitNamesAndDamagedLedgersAreErrors) {
  const std::string d = test::temp_dir("ledger_limits");
  const std::string l = d + "/l.sqlite", model = d + "/zoo.onnx";
  ASSERT_EQ(test::run_cli("zoo yolo11n-pose --imgsz 160 -o " + test::shell_quote(model)).exit_code,
            0);
  for (const char* tag : {"base", "next"}) {
    auto r =
        test::run_cli("bench --model " + test::shell_quote(model) +
                      " --runs 1 --warmup 0 --ledger " + test::shell_quote(l) + " --tag " + tag);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto r = test::run_cli("ledger check " + test::shell_quote(l) +
                         " --baseline base --candidate next --max-rise latnecy=1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown metric 'latnecy'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("latency_ms"), std::string::npos) << r.err;  // the known names
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  r = test::run_cli("ledger check " + test::shell_quote(l) +
                    " --baseline base --candidate next --max-rise latency_ms=1000%");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  // Read as immutable, the way a ledger nobody may write is read.
  {
    SqliteDb db(l, SqliteDb::Mode::kImmutable);
    SqliteStatement n(db, "SELECT COUNT(*) FROM runs");
    ASSERT_TRUE(n.step());
    EXPECT_EQ(n.text(0), "2");
  }
  {
    SqliteDb db(l, SqliteDb::Mode::kReadWrite);
    db.exec("UPDATE ledger_meta SET value = 'x1' WHERE key = 'schema_version'");
  }
  r = test::run_cli("ledger list " + test::shell_quote(l));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("has no valid schema version"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("stoi"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
}

// The real yolo11n-pose: W8A16 and W8A8 compared with FP32 on coco8-pose (8 labelled photos);
// the W8A8 run must fail the default gate against W8A16, and a second identical W8A16 run pass.
TEST(LedgerCli, CheckFailsW8A8AgainstW8A16AndPassesIdenticalRuns) {
  EDGEQ_REQUIRE_REAL_DATA();
  const std::string d = test::temp_dir("ledger_gate");
  const std::string model = test::real_model_path(), images = test::coco8_pose_dir() + "/images";
  const std::string l = d + "/l.sqlite";
  ASSERT_EQ(
      test::run_cli("calibrate --model " + test::shell_quote(model) + " --images " +
                    test::shell_quote(images) + " --n 8 --out " + test::shell_quote(d + "/s.cbor"))
          .exit_code,
      0);
  for (const char* scheme : {"w8a16", "w8a8"}) {
    auto r = test::run_cli("quantize --model " + test::shell_quote(model) + " --stats " +
                           test::shell_quote(d + "/s.cbor") + " --scheme " + scheme + " --out " +
                           test::shell_quote(d + "/" + scheme + ".onnx"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto compare = [&](const std::string& scheme, const std::string& tag) {
    auto r = test::run_cli("compare --ref " + test::shell_quote(model) + " --test " +
                           test::shell_quote(d + "/" + scheme + ".onnx") + " --images " +
                           test::shell_quote(images) + " --quiet --ledger " + test::shell_quote(l) +
                           " --tag " + tag);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  };
  compare("w8a16", "w8a16");
  compare("w8a8", "w8a8");
  compare("w8a16", "w8a16-again");

  auto fail =
      test::run_cli("ledger check " + test::shell_quote(l) + " --baseline w8a16 --candidate w8a8");
  std::printf("%s", fail.out.c_str());
  EXPECT_EQ(fail.exit_code, 1) << fail.err;
  EXPECT_NE(fail.out.find("REGRESSED"), std::string::npos);
  auto pass = test::run_cli("ledger check " + test::shell_quote(l) +
                            " --baseline w8a16 --candidate w8a16-again");
  std::printf("%s", pass.out.c_str());
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  EXPECT_NE(pass.out.find("0 of "), std::string::npos) << pass.out;
}

// A ledger written elsewhere (or edited) may hold control characters in its tags and command
// lines: list / show / diff print them escaped, never raw into a terminal or CI log.
TEST(LedgerCli, ControlCharactersArePrintedEscaped) {
  const std::string dir = test::temp_dir("ledger_control");
  const std::string l = dir + "/l.sqlite";
  {
    LedgerDb ledger(l, LedgerDb::Access::kWrite);
    LedgerEntry e;
    e.kind = "bench";
    e.command_line = "edgeq bench \x1b[2J";
    e.tag = "nightly\x1b[31m\r";
    e.report = {{"median_ms", 1.0}};
    ledger.record(e);
    ledger.record(e);
  }
  for (const std::string cmd : {"ledger list ", "ledger show ", "ledger diff "}) {
    const std::string extra = cmd == "ledger show " ? " @1" : cmd == "ledger diff " ? " @1 @2" : "";
    const auto r = test::run_cli(cmd + test::shell_quote(l) + extra);
    ASSERT_EQ(r.exit_code, 0) << cmd << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << cmd;
    EXPECT_EQ(r.out.find('\r'), std::string::npos) << cmd;
    EXPECT_NE(r.out.find("nightly\\x1b[31m\\r"), std::string::npos) << cmd << r.out;
  }
}

}  // namespace
}  // namespace edgeq
