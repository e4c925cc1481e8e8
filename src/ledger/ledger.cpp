#include "ledger/ledger.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "core/json_text.h"
#include "core/text_format.h"

namespace edgeq {
namespace {

constexpr int kSchemaVersion = 1;

SqliteDb::Mode db_mode(const std::string& path, LedgerDb::Access access) {
  // Read or written, a ledger is a regular file (through a link, its target): a device, a FIFO
  // or a folder is refused when it is opened, before the work whose run it would record.
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  EDGEQ_CHECK(access == LedgerDb::Access::kWrite || std::filesystem::exists(st),
              "ledger not found: ", path);
  EDGEQ_CHECK(!std::filesystem::exists(st) || std::filesystem::is_regular_file(st), "ledger ", path,
              " is ", std::filesystem::is_directory(st) ? "a folder" : "not a regular file",
              " (a ledger is the SQLite file edgeq records runs in)");
  if (access == LedgerDb::Access::kRead) {
    // Reading a WAL database needs its -shm file: where the ledger or its folder is read-only,
    // read it as immutable (nothing else may be writing it then).
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    const bool writable =
        ::access(path.c_str(), W_OK) == 0 && ::access(dir.empty() ? "." : dir.c_str(), W_OK) == 0;
    return writable ? SqliteDb::Mode::kReadOnly : SqliteDb::Mode::kImmutable;
  }
  return SqliteDb::Mode::kReadWrite;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string quoted(const std::string& identifier) {
  return "\"" + identifier + "\"";
}

void bind_text_or_null(SqliteStatement& s, int i, const std::string& text) {
  if (text.empty())
    s.bind_null(i);
  else
    s.bind(i, text);
}

}  // namespace

std::optional<double> LedgerRun::metric(const std::string& name) const {
  for (const auto& [n, v] : metrics)
    if (n == name) return v;
  return std::nullopt;
}

LedgerDb::LedgerDb(const std::string& path, Access access) : db_(path, db_mode(path, access)) {
  check_is_ledger(access);
  if (access == Access::kWrite) create_schema();
}

void LedgerDb::check_is_ledger(Access access) {
  // The first read of the file: a file that is not SQLite fails here ("is not an SQLite
  // database").
  SqliteStatement tables(db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
  std::set<std::string> names;
  while (tables.step()) names.insert(tables.text(0));
  if (names.empty()) {
    EDGEQ_CHECK(access == Access::kWrite, "ledger ", path(), " is empty (no run recorded yet)");
    return;
  }
  EDGEQ_CHECK(names.count("ledger_meta"), "ledger ", path(),
              " is an SQLite database but not an edgeq ledger (no ledger_meta table)");
  SqliteStatement v(db_, "SELECT value FROM ledger_meta WHERE key = 'schema_version'");
  const std::string text = v.step() ? v.text(0) : "";
  const bool numeric =
      !text.empty() && text.size() <= 9 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  EDGEQ_CHECK(numeric, "ledger ", path(), " has no valid schema version (ledger_meta holds '", text,
              "'): not written by edgeq, or damaged");
  const int version = std::stoi(text);
  EDGEQ_CHECK(version >= 1 && version <= kSchemaVersion, "ledger ", path(), " has schema version ",
              version, "; this edgeq reads versions 1 to ", kSchemaVersion);
}

void LedgerDb::create_schema() {
  {  // finalized before the transaction: a statement in progress would block its COMMIT
    SqliteStatement wal(db_, "PRAGMA journal_mode = WAL");
    EDGEQ_CHECK(wal.step() && wal.text(0) == "wal", "ledger ", path(),
                ": cannot switch to WAL mode (journal mode '", wal.text(0), "')");
  }
  db_.exec("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON");
  SqliteTransaction tx(db_);
  db_.exec(
      "CREATE TABLE IF NOT EXISTS ledger_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT OR IGNORE INTO ledger_meta VALUES('schema_version', '" +
      std::to_string(kSchemaVersion) +
      "');"
      "CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, "
      "kind TEXT NOT NULL, command_line TEXT NOT NULL, tag TEXT NOT NULL DEFAULT '', "
      "model_sha256 TEXT, output_sha256 TEXT, options TEXT NOT NULL DEFAULT '{}');"
      "CREATE INDEX IF NOT EXISTS runs_by_tag ON runs(tag, kind);"
      "CREATE TABLE IF NOT EXISTS metrics(run_id INTEGER NOT NULL REFERENCES runs(id), "
      "name TEXT NOT NULL, value REAL NOT NULL, PRIMARY KEY(run_id, name));");
  for (const LedgerKind& k : ledger_kinds()) {
    db_.exec("CREATE TABLE IF NOT EXISTS " + quoted(k.table) +
             "(run_id INTEGER PRIMARY KEY REFERENCES runs(id))");
    std::set<std::string> have;
    SqliteStatement info(db_, "SELECT name FROM pragma_table_info(?1)");
    info.bind(1, k.table);
    while (info.step()) have.insert(info.text(0));
    for (const LedgerColumn& c : k.columns)  // columns a newer edgeq added
      if (!have.count(c.name))
        db_.exec("ALTER TABLE " + quoted(k.table) + " ADD COLUMN " + quoted(c.name) + " REAL");
  }
  tx.commit();
}

int64_t LedgerDb::record(const LedgerEntry& e) {
  const LedgerKind& kind = ledger_kind(e.kind);
  const Metrics metrics = ledger_metrics(kind, e.report);
  SqliteTransaction tx(db_);
  SqliteStatement run(db_,
                      "INSERT INTO runs(time, kind, command_line, tag, model_sha256, "
                      "output_sha256, options) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  run.bind(1, utc_now()).bind(2, e.kind).bind(3, e.command_line).bind(4, e.tag);
  bind_text_or_null(run, 5, e.model_sha256);
  bind_text_or_null(run, 6, e.output_sha256);
  run.bind(7, json_text(e.options));
  run.step();
  const int64_t id = db_.last_insert_id();

  SqliteStatement metric(db_, "INSERT INTO metrics(run_id, name, value) VALUES(?1, ?2, ?3)");
  for (const auto& [name, value] : metrics) {
    metric.reset();
    metric.bind(1, id).bind(2, name).bind(3, value);
    metric.step();
  }

  std::string cols = "run_id", params = "?1";
  for (size_t i = 0; i < kind.columns.size(); ++i) {
    cols += ", " + quoted(kind.columns[i].name);
    params += ", ?" + std::to_string(i + 2);
  }
  SqliteStatement row(
      db_, "INSERT INTO " + quoted(kind.table) + "(" + cols + ") VALUES(" + params + ")");
  row.bind(1, id);
  for (size_t i = 0; i < kind.columns.size(); ++i) {
    auto it = std::find_if(metrics.begin(), metrics.end(),
                           [&](const auto& m) { return m.first == kind.columns[i].name; });
    if (it == metrics.end())
      row.bind_null(static_cast<int>(i) + 2);
    else
      row.bind(static_cast<int>(i) + 2, it->second);
  }
  row.step();
  tx.commit();
  return id;
}

namespace {

constexpr const char* kRunColumns =
    "SELECT id, time, kind, command_line, tag, coalesce(model_sha256, ''), "
    "coalesce(output_sha256, ''), options FROM runs";

LedgerRun run_from_row(const SqliteStatement& s) {
  LedgerRun r;
  r.id = s.integer(0);
  // Read back as stored (a tag may be bytes outside UTF-8, as the program was given it): the
  // printers escape what reaches a terminal (ledger/ledger_print.cpp), the JSON writer keeps it.
  r.time = s.text(1);
  r.kind = s.text(2);
  r.command_line = s.text(3);
  r.tag = s.text(4);
  r.model_sha256 = s.text(5);
  r.output_sha256 = s.text(6);
  r.options = s.text(7);
  return r;
}

}  // namespace

std::vector<LedgerRun> LedgerDb::runs() {
  std::vector<LedgerRun> out;
  SqliteStatement s(db_, std::string(kRunColumns) + " ORDER BY id");
  while (s.step()) out.push_back(run_from_row(s));
  return out;
}

LedgerRun LedgerDb::run(int64_t id) {
  SqliteStatement s(db_, std::string(kRunColumns) + " WHERE id = ?1");
  s.bind(1, id);
  EDGEQ_CHECK(s.step(), "ledger ", path(), " has no run @", id);
  LedgerRun r = run_from_row(s);
  SqliteStatement m(db_, "SELECT name, value FROM metrics WHERE run_id = ?1 ORDER BY name");
  m.bind(1, id);
  while (m.step()) r.metrics.emplace_back(m.text(0), m.real(1));
  return r;
}

std::optional<int64_t> LedgerDb::latest(const std::string& tag, const std::string& kind) {
  SqliteStatement s(db_,
                    "SELECT max(id) FROM runs WHERE tag = ?1 AND kind = ?2 HAVING max(id) IS "
                    "NOT NULL");
  s.bind(1, tag).bind(2, kind);
  if (!s.step()) return std::nullopt;
  return s.integer(0);
}

std::vector<std::string> LedgerDb::tags() {
  std::vector<std::string> out;
  SqliteStatement s(db_, "SELECT DISTINCT tag FROM runs WHERE tag != '' ORDER BY tag");
  while (s.step()) out.push_back(s.text(0));
  return out;
}

}  // namespace edgeq
