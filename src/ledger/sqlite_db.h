// A thin RAII layer over the SQLite C API: a connection, prepared statements with bound values,
// and a transaction that rolls back unless committed. Every failure throws one edgeq::Error line
// naming the database file.
#pragma once
#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace edgeq {

class SqliteDb;

class SqliteStatement {
 public:
  SqliteStatement(SqliteDb& db, const std::string& sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  // Parameters are 1-based, as in SQL's ?1, ?2...
  SqliteStatement& bind(int i, const std::string& text);
  SqliteStatement& bind(int i, double value);
  SqliteStatement& bind(int i, int64_t value);
  SqliteStatement& bind_null(int i);
  // Next row: true while there is one. Runs a statement without rows to its end.
  bool step();
  void reset();  // ready to run again (keeps bindings)

  bool is_null(int col) const;
  std::string text(int col) const;
  double real(int col) const;
  int64_t integer(int col) const;

 private:
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteDb {
 public:
  // kImmutable: a file this process may not write (a read-only file or folder): read without
  // locks or the WAL's shared-memory file, which a read-only open of a WAL database would create.
  enum class Mode { kReadWrite, kReadOnly, kImmutable };
  SqliteDb(const std::string& path, Mode mode);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements that return no rows.
  void exec(const std::string& sql);
  int64_t last_insert_id() const;
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  // Throws "<what>: <sqlite message> (<path>)"; "is not an SQLite database" for a foreign file.
  [[noreturn]] void fail_with(int rc, const std::string& what) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back when destroyed uncommitted (an exception on the way).
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  ~SqliteTransaction();
  void commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace edgeq
