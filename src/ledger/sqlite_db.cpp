#include "ledger/sqlite_db.h"

#include <sqlite3.h>

#include "core/error.h"

namespace edgeq {

namespace {

// `path` as an SQLite URI with immutable=1 (characters a URI gives meaning to escaped).
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  const char* hex = "0123456789ABCDEF";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f) {
      uri += '%';
      uri += hex[c >> 4];
      uri += hex[c & 15];
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

SqliteDb::SqliteDb(const std::string& path, Mode mode) : path_(path) {
  int flags =
      mode == Mode::kReadWrite ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  std::string name = path;
  if (mode == Mode::kImmutable) {
    flags |= SQLITE_OPEN_URI;
    name = immutable_uri(path);
  }
  const int rc = sqlite3_open_v2(name.c_str(), &db_, flags | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) fail_with(rc, "cannot open ledger");
  sqlite3_busy_timeout(db_, 10000);  // another edgeq writing the same ledger
}

SqliteDb::~SqliteDb() {
  sqlite3_close_v2(db_);
}

void SqliteDb::fail_with(int rc, const std::string& what) const {
  if ((rc & 0xff) == SQLITE_NOTADB)
    fail("ledger ", path_, " is not an SQLite database (", what, ")");
  const char* msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  fail(what, ": ", msg, " (", path_, ")");
}

void SqliteDb::exec(const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) fail_with(rc, "ledger statement failed");
}

int64_t SqliteDb::last_insert_id() const {
  return sqlite3_last_insert_rowid(db_);
}

SqliteStatement::SqliteStatement(SqliteDb& db, const std::string& sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) db.fail_with(rc, "ledger query failed");
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::bind(int i, const std::string& text) {
  const int rc =
      sqlite3_bind_text(stmt_, i, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_.fail_with(rc, "ledger bind failed");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int i, double value) {
  const int rc = sqlite3_bind_double(stmt_, i, value);
  if (rc != SQLITE_OK) db_.fail_with(rc, "ledger bind failed");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int i, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, i, value);
  if (rc != SQLITE_OK) db_.fail_with(rc, "ledger bind failed");
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int i) {
  const int rc = sqlite3_bind_null(stmt_, i);
  if (rc != SQLITE_OK) db_.fail_with(rc, "ledger bind failed");
  return *this;
}

bool SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail_with(rc, "ledger query failed");
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
}

bool SqliteStatement::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

std::string SqliteStatement::text(int col) const {
  const unsigned char* t = sqlite3_column_text(stmt_, col);
  return t ? std::string(reinterpret_cast<const char*>(t),
                         static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
           : std::string();
}

double SqliteStatement::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}

int64_t SqliteStatement::integer(int col) const {
  return sqlite3_column_int64(stmt_, col);
}

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction() {
  if (done_) return;
  sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace edgeq
