#include "ledger_options.h"

#include <filesystem>
#include <iostream>

#include "edgeq/error.h"
#include "edgeq/files.h"
#include "edgeq/json.h"
#include "edgeq/text.h"

namespace edgeq::cli {
namespace {

std::string& stored_command_line() {
  static std::string line;
  return line;
}

std::string shell_quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,%+@") == std::string::npos)
    return arg;
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The options the user gave, and the defaults CLI11 knows for the rest.
nlohmann::json command_options(const CLI::App& cmd) {
  nlohmann::json j = nlohmann::json::object();
  for (const CLI::Option* o : cmd.get_options()) {
    const std::string name = o->get_single_name();
    if (name.empty() || name == "help" || name == "ledger" || name == "tag") continue;
    if (o->count() > 0) {
      const std::vector<std::string> r = o->results();
      j[name] = r.size() == 1 ? nlohmann::json(r[0]) : nlohmann::json(r);
    } else if (!o->get_default_str().empty()) {
      j[name] = o->get_default_str();
    }
  }
  return j;
}

}  // namespace

void add_ledger_options(CLI::App* cmd, LedgerArgs& a) {
  a.command = cmd;
  auto* ledger = cmd->add_option("--ledger", a.file,
                                 "regression ledger (SQLite) to add this run to when it finishes");
  cmd->add_option("--tag", a.tag, "tag of the ledger row (what `ledger check` compares)")
      ->needs(ledger);
}

RoleFile ledger_output(const LedgerArgs& a) {
  return {"--ledger", a.file};
}

void set_command_line(int argc, const char* const* argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + shell_quoted(argv[i]);
  stored_command_line() = line;
}

const std::string& command_line() {
  return stored_command_line();
}

LedgerRecorder::LedgerRecorder(const LedgerArgs& a) : args_(a) {
  const std::string problem = ledger_tag_problem(a.tag);
  EDGEQ_CHECK(problem.empty(), "--tag: ", problem);
  // An existing ledger is opened (and a file that is not one refused) before any work; a new one
  // is created only when there is a run to record, so a command that fails creates no file.
  if (a.file.empty()) return;
  std::error_code ec;
  if (std::filesystem::exists(a.file, ec))
    ledger_ = std::make_unique<Ledger>(a.file, true);
  else
    check_distinct_files({}, {{"--ledger", a.file}});  // a folder it can be created in
}

void LedgerRecorder::record(const std::string& kind, const nlohmann::json& report,
                            const std::string& model_file, const std::string& output_file) {
  if (args_.file.empty()) return;
  record(kind, json_text(report), model_file, output_file);
}

void LedgerRecorder::record(const std::string& kind, const std::string& report_json,
                            const std::string& model_file, const std::string& output_file) {
  if (args_.file.empty()) return;
  if (!ledger_) {
    const std::filesystem::path parent = std::filesystem::path(args_.file).parent_path();
    if (!parent.empty()) ensure_dir(parent.string());
    ledger_ = std::make_unique<Ledger>(args_.file, true);
  }
  LedgerRecordOptions o;
  o.command_line = command_line();
  o.tag = args_.tag;
  o.model_file = model_file;
  o.output_file = output_file;
  if (args_.command) o.options_json = json_text(command_options(*args_.command));
  const int64_t id = ledger_->record(kind, report_json, o);
  std::cerr << "ledger: recorded run " << id << " (" << kind << ")"
            << (args_.tag.empty() ? "" : " tagged '" + args_.tag + "'") << " in "
            << printable(args_.file) << "\n";
}

}  // namespace edgeq::cli
