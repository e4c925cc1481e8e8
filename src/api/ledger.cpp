// The public Ledger over the report/ ledger (its SQLite store, metrics and gate).
#include "edgeq/ledger.h"

#include <sstream>

#include "api/api_impl.h"
#include "core/error.h"
#include "core/file_io.h"
#include "core/json_text.h"
#include "core/sha256.h"
#include "ledger/ledger.h"
#include "ledger/ledger_check.h"
#include "ledger/ledger_kinds.h"
#include "ledger/ledger_print.h"

namespace edgeq {
namespace {

std::string file_sha256(const std::string& path) {
  return path.empty() ? std::string() : sha256_hex(read_file(path));
}

nlohmann::json json_object(const std::string& text, const char* what) {
  nlohmann::json j;
  try {
    j = parse_json_text(text);
  } catch (const nlohmann::json::exception& e) {
    fail("ledger: ", what, " is not JSON (", e.what(), ")");
  }
  EDGEQ_CHECK(j.is_object(), "ledger: ", what, " must be a JSON object");
  return j;
}

LedgerRunInfo info(const LedgerRun& r) {
  LedgerRunInfo i;
  i.id = r.id, i.time = r.time, i.kind = r.kind, i.command_line = r.command_line, i.tag = r.tag;
  i.model_sha256 = r.model_sha256, i.output_sha256 = r.output_sha256, i.options_json = r.options;
  for (const auto& [name, value] : r.metrics) i.metrics.emplace_back(name, value);
  return i;
}

}  // namespace

struct Ledger::Impl {
  Impl(const std::string& path, bool write)
      : db(path, write ? LedgerDb::Access::kWrite : LedgerDb::Access::kRead) {}
  LedgerDb db;
};

Ledger::Ledger(const std::string& path, bool write) : impl_(std::make_unique<Impl>(path, write)) {}
Ledger::~Ledger() = default;
Ledger::Ledger(Ledger&&) noexcept = default;
Ledger& Ledger::operator=(Ledger&&) noexcept = default;

std::string ledger_tag_problem(const std::string& tag) {
  if (!tag.empty() && tag[0] == '@')
    return "a tag cannot start with @ (ledger show / diff / check read @N as run N)";
  if (has_control_characters(tag))
    return "a tag holds a control or bidi formatting character (e.g. U+202E)";
  return "";
}

int64_t Ledger::record(const std::string& kind, const std::string& report_json,
                       const LedgerRecordOptions& o) {
  const std::string problem = ledger_tag_problem(o.tag);
  EDGEQ_CHECK(problem.empty(), "tag: ", problem);
  LedgerEntry e;
  e.kind = kind;
  e.command_line = o.command_line;
  e.tag = o.tag;
  e.model_sha256 = file_sha256(o.model_file);
  e.output_sha256 = file_sha256(o.output_file);
  e.options = json_object(o.options_json, "options_json");
  e.report = json_object(report_json, "report_json");
  return impl_->db.record(e);
}

std::vector<LedgerRunInfo> Ledger::runs() {
  std::vector<LedgerRunInfo> out;
  for (const LedgerRun& r : impl_->db.runs()) out.push_back(info(r));
  return out;
}

LedgerRunInfo Ledger::run(int64_t id) {
  return info(impl_->db.run(id));
}

std::vector<std::string> Ledger::tags() {
  return impl_->db.tags();
}

LedgerCheck Ledger::check(const std::string& baseline, const std::string& candidate,
                          const LedgerCheckOptions& o) {
  const CheckResult r =
      check_regressions(impl_->db, baseline, candidate, parse_limits(o.max_drop, "max_drop"),
                        parse_limits(o.max_rise, "max_rise"));
  LedgerCheck out;
  for (const CheckRow& row : r.rows)
    out.rows.push_back({row.kind, row.metric, row.direction, row.baseline, row.candidate, row.limit,
                        row.regressed});
  out.not_recorded = r.not_recorded;
  out.regressions = r.regressions();
  out.text = printed([&](std::ostream& os) { print_check(r, baseline, candidate, os); });
  return out;
}

const std::string& Ledger::path() const {
  return impl_->db.path();
}

void validate_ledger_limits(const LedgerCheckOptions& limits, const std::string& drop_name,
                            const std::string& rise_name) {
  check_limits(parse_limits(limits.max_drop, drop_name), parse_limits(limits.max_rise, rise_name),
               drop_name, rise_name);
}

std::vector<std::pair<LedgerRunInfo, LedgerRunInfo>> Ledger::matching_runs(const std::string& a,
                                                                           const std::string& b) {
  std::vector<std::pair<LedgerRunInfo, LedgerRunInfo>> out;
  for (const auto& [ra, rb] : ::edgeq::matching_runs(impl_->db, a, b))
    out.emplace_back(info(ra), info(rb));
  return out;
}

std::string Ledger::list_text(const std::string& tag, const std::string& kind) {
  std::vector<LedgerRun> runs;
  for (LedgerRun& r : impl_->db.runs())
    if ((tag.empty() || r.tag == tag) && (kind.empty() || r.kind == kind))
      runs.push_back(std::move(r));
  return printed([&](std::ostream& os) { print_run_list(impl_->db, runs, os); });
}

std::string Ledger::show_text(const std::string& ref) {
  LedgerDb& db = impl_->db;
  const std::vector<LedgerRun> all = db.runs();
  EDGEQ_CHECK(!all.empty(), "ledger ", path(), " holds no run");
  std::ostringstream os;
  if (ref.empty()) {
    print_run(db.run(all.back().id), os);
    return os.str();
  }
  if (const std::optional<int64_t> id = parse_run_id(ref)) {
    print_run(db.run(*id), os);
    return os.str();
  }
  bool any = false;
  for (const LedgerKind& k : ledger_kinds())
    if (auto id = db.latest(ref, k.name)) {
      print_run(db.run(*id), os);
      any = true;
    }
  // An unknown tag: matching_runs names the tags there are.
  if (!any) ::edgeq::matching_runs(db, ref, ref);
  return os.str();
}

std::string Ledger::diff_text(const std::string& a, const std::string& b) {
  std::ostringstream os;
  for (const auto& [ra, rb] : ::edgeq::matching_runs(impl_->db, a, b)) print_run_diff(ra, rb, os);
  return os.str();
}

}  // namespace edgeq
