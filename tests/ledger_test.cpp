// The regression ledger on its own: schema and WAL mode, one run's rows (runs, metrics, its kind
// table), metric names from a report, files that are not ledgers, the regression check by hand,
// and a writer killed with SIGKILL in the middle of writing many runs.
#include "ledger/ledger.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/file_io.h"
#include "ledger/ledger_check.h"
#include "ledger/sqlite_db.h"
#include "test_util.h"

namespace edgeq {
namespace {

using test::error_of;

nlohmann::json compare_report(double match_rate, double box_px, double pose_map) {
  return {{"images", 8},
          {"tensors", {{{"name", "output0"}, {"rel_l2", 0.002}, {"shape", {1, 56, 8400}}}}},
          {"detections",
           {{"match_rate", match_rate}, {"box_px", {{"mean", box_px}, {"p95", 2 * box_px}}}}},
          {"labels", {{"test", {{"pose", {{"map50_95", pose_map}}}}}}}};
}

LedgerEntry entry(const std::string& kind, const std::string& tag, nlohmann::json report) {
  LedgerEntry e;
  e.kind = kind;
  e.tag = tag;
  e.command_line = "edgeq " + kind;
  e.model_sha256 = std::string(64, 'a');
  e.report = std::move(report);
  return e;
}

int64_t count(SqliteDb& db, const std::string& sql) {
  SqliteStatement s(db, sql);
  EXPECT_TRUE(s.step());
  return s.integer(0);
}

TEST(Ledger, SchemaWalModeAndOneRunsRows) {
  const std::string path = test::temp_dir("ledger") + "/l.sqlite";
  {
    LedgerDb l(path, LedgerDb::Access::kWrite);
    nlohmann::json opts = {{"scheme", "w8a8"}};
    LedgerEntry e = entry("compare", "w8a8", compare_report(0.8, 2.5, 0.31));
    e.options = opts;
    e.output_sha256 = std::string(64, 'b');
    EXPECT_EQ(l.record(e), 1);
  }
  SqliteDb db(path, SqliteDb::Mode::kReadOnly);
  SqliteStatement mode(db, "PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.text(0), "wal");
  for (const char* table : {"ledger_meta", "runs", "metrics", "calibrate_runs", "quantize_runs",
                            "compare_runs", "bench_runs", "run_runs"})
    EXPECT_EQ(
        count(db, std::string("SELECT count(*) FROM sqlite_master WHERE name = '") + table + "'"),
        1)
        << table;
  SqliteStatement run(db,
                      "SELECT kind, tag, command_line, model_sha256, output_sha256, options, "
                      "time FROM runs WHERE id = 1");
  ASSERT_TRUE(run.step());
  EXPECT_EQ(run.text(0), "compare");
  EXPECT_EQ(run.text(1), "w8a8");
  EXPECT_EQ(run.text(2), "edgeq compare");
  EXPECT_EQ(run.text(3), std::string(64, 'a'));
  EXPECT_EQ(run.text(4), std::string(64, 'b'));
  EXPECT_EQ(nlohmann::json::parse(run.text(5)), nlohmann::json({{"scheme", "w8a8"}}));
  EXPECT_EQ(run.text(6).size(), 20u);  // 2025-01-31T12:00:00Z
  // The kind table: the columns the report has, NULL for the rest.
  SqliteStatement row(db,
                      "SELECT match_rate, box_px_mean, box_px_p95, pose_map50_95, kpt_px_mean "
                      "FROM compare_runs WHERE run_id = 1");
  ASSERT_TRUE(row.step());
  EXPECT_DOUBLE_EQ(row.real(0), 0.8);
  EXPECT_DOUBLE_EQ(row.real(1), 2.5);
  EXPECT_DOUBLE_EQ(row.real(2), 5.0);
  EXPECT_DOUBLE_EQ(row.real(3), 0.31);
  EXPECT_TRUE(row.is_null(4));
  // Metrics: column names where a column reads the number, dotted paths for the rest; arrays
  // of named objects keyed by name, other arrays (shapes) left out.
  SqliteStatement m(db, "SELECT name, value FROM metrics WHERE run_id = 1 ORDER BY name");
  std::vector<std::pair<std::string, double>> got;
  while (m.step()) got.emplace_back(m.text(0), m.real(1));
  const std::vector<std::pair<std::string, double>> want = {
      {"box_px_mean", 2.5}, {"box_px_p95", 5.0},     {"images", 8},
      {"match_rate", 0.8},  {"pose_map50_95", 0.31}, {"tensors.output0.rel_l2", 0.002}};
  EXPECT_EQ(got, want);
}

TEST(Ledger, ReopeningKeepsRunsAndReadsThem) {
  const std::string path = test::temp_dir("ledger") + "/l.sqlite";
  {
    LedgerDb l(path, LedgerDb::Access::kWrite);
    l.record(entry("bench", "base", {{"median_ms", 30.0}}));
    l.record(entry("bench", "base", {{"median_ms", 31.0}}));
  }
  LedgerDb l(path, LedgerDb::Access::kWrite);
  l.record(entry("compare", "cand", compare_report(0.9, 1, 0.3)));
  LedgerDb r(path, LedgerDb::Access::kRead);
  ASSERT_EQ(r.runs().size(), 3u);
  EXPECT_EQ(r.latest("base", "bench"), 2);
  EXPECT_EQ(r.latest("base", "compare"), std::nullopt);
  EXPECT_EQ(r.tags(), (std::vector<std::string>{"base", "cand"}));
  EXPECT_EQ(r.run(2).metric("latency_ms"), 31.0);
  EXPECT_NE(error_of([&] { r.run(9); }).find("no run @9"), std::string::npos);
}

TEST(Ledger, FilesThatAreNotLedgersAreRefusedInOneLine) {
  const std::string dir = test::temp_dir("ledger");
  write_file_atomic(dir + "/text.sqlite", std::string(4096, 'x'));
  std::string e = error_of([&] { LedgerDb(dir + "/text.sqlite", LedgerDb::Access::kWrite); });
  EXPECT_NE(e.find("is not an SQLite database"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_EQ(read_file(dir + "/text.sqlite"), std::string(4096, 'x'));  // untouched
  e = error_of([&] { LedgerDb(dir + "/text.sqlite", LedgerDb::Access::kRead); });
  EXPECT_NE(e.find("is not an SQLite database"), std::string::npos) << e;
  {
    SqliteDb other(dir + "/other.db", SqliteDb::Mode::kReadWrite);
    other.exec("CREATE TABLE songs(title TEXT)");
  }
  e = error_of([&] { LedgerDb(dir + "/other.db", LedgerDb::Access::kWrite); });
  EXPECT_NE(e.find("not an edgeq ledger"), std::string::npos) << e;
  e = error_of([&] { LedgerDb(dir + "/missing.sqlite", LedgerDb::Access::kRead); });
  EXPECT_NE(e.find("ledger not found"), std::string::npos) << e;
}

TEST(LedgerCheck, LimitsParseAbsoluteAndPercent) {
  auto l = parse_limits("match_rate=0.01,latency_ms=5%", "--max-drop");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].metric, "match_rate");
  EXPECT_DOUBLE_EQ(l[0].allowed(0.9), 0.01);
  EXPECT_TRUE(l[1].relative);
  EXPECT_DOUBLE_EQ(l[1].allowed(-40), 2.0);
  EXPECT_EQ(l[1].text(), "5%");
  for (const char* bad : {"match_rate", "=1", "x=abc", "x=-1", "x=1e999"}) {
    std::string e = error_of([&] { parse_limits(bad, "--max-drop"); });
    EXPECT_NE(e.find("--max-drop"), std::string::npos) << bad << ": " << e;
  }
}

TEST(LedgerCheck, PassesWithinLimitsAndFailsPastThem) {
  const std::string path = test::temp_dir("ledger") + "/l.sqlite";
  LedgerDb l(path, LedgerDb::Access::kWrite);
  l.record(entry("compare", "base", compare_report(0.95, 1.00, 0.400)));
  l.record(entry("bench", "base", {{"median_ms", 30.0}}));
  l.record(entry("compare", "same", compare_report(0.95, 1.00, 0.400)));
  l.record(entry("bench", "same", {{"median_ms", 31.4}}));  // +4.7%
  l.record(entry("compare", "worse", compare_report(0.93, 1.05, 0.396)));
  l.record(entry("bench", "worse", {{"median_ms", 31.6}}));  // +5.3%
  const auto drop = parse_limits("match_rate=0.01,pose_map50_95=0.005", "--max-drop");
  const auto rise = parse_limits("box_px_mean=0.1,latency_ms=5%", "--max-rise");

  CheckResult same = check_regressions(l, "base", "same", drop, rise);
  EXPECT_EQ(same.rows.size(), 4u);
  EXPECT_EQ(same.regressions(), 0u);

  CheckResult worse = check_regressions(l, "base", "worse", drop, rise);
  ASSERT_EQ(worse.rows.size(), 4u);
  EXPECT_EQ(worse.regressions(), 2u);  // match_rate -0.02 > 0.01; latency +5.3% > 5%
  for (const CheckRow& r : worse.rows)
    EXPECT_EQ(r.regressed, r.metric == "match_rate" || r.metric == "latency_ms") << r.metric;
  std::ostringstream table;
  print_check(worse, "base", "worse", table);
  EXPECT_NE(table.str().find("REGRESSED"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("2 of 4"), std::string::npos) << table.str();

  // A metric the baseline has and the candidate lost is a regression.
  l.record(entry("compare", "lost", {{"detections", {{"match_rate", 0.99}}}}));
  CheckResult lost = check_regressions(l, "base", "lost", drop, {});
  EXPECT_EQ(lost.regressions(), 1u);  // pose_map50_95 missing

  std::string e = error_of([&] { check_regressions(l, "base", "nope", drop, rise); });
  EXPECT_NE(e.find("no run tagged 'nope'"), std::string::npos) << e;
  EXPECT_NE(e.find("base"), std::string::npos) << e;  // names the tags there are
}

// A child process records runs as fast as it can until it is killed with SIGKILL; every run it
// committed must be there whole (its metrics and kind row too) and the file must pass SQLite's
// integrity check and take new runs.
TEST(Ledger, SigkillMidWriteLosesNoEarlierRun) {
  const std::string path = test::temp_dir("ledger") + "/l.sqlite";
  { LedgerDb init(path, LedgerDb::Access::kWrite); }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      LedgerDb l(path, LedgerDb::Access::kWrite);
      for (int i = 1;; ++i) l.record(entry("compare", "t", compare_report(i, i, i)));
    } catch (...) {
    }
    _exit(3);
  }
  int64_t seen = 0;
  for (int wait = 0; wait < 3000 && seen < 40; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    try {
      SqliteDb db(path, SqliteDb::Mode::kReadOnly);
      seen = count(db, "SELECT count(*) FROM runs");
    } catch (const Error&) {
    }
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended on its own: " << status;
  ASSERT_GE(seen, 40);

  SqliteDb db(path, SqliteDb::Mode::kReadWrite);
  SqliteStatement ok(db, "PRAGMA integrity_check");
  ASSERT_TRUE(ok.step());
  EXPECT_EQ(ok.text(0), "ok");
  const int64_t runs = count(db, "SELECT count(*) FROM runs");
  EXPECT_GE(runs, seen);
  EXPECT_EQ(count(db, "SELECT max(id) FROM runs"), runs);  // no gap
  // Every run whole: 6 metrics and a kind row holding its own number.
  EXPECT_EQ(count(db, "SELECT count(*) FROM metrics"), 6 * runs);
  EXPECT_EQ(count(db,
                  "SELECT count(*) FROM compare_runs WHERE match_rate = run_id AND "
                  "box_px_mean = run_id AND pose_map50_95 = run_id"),
            runs);
  LedgerDb again(path, LedgerDb::Access::kWrite);
  EXPECT_EQ(again.record(entry("bench", "after", {{"median_ms", 1.0}})), runs + 1);
  std::printf("%lld runs committed before SIGKILL, all intact\n", static_cast<long long>(runs));
}

}  // namespace
}  // namespace edgeq
