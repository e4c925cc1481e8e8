#include "analysis/op_support.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_text.h"

namespace edgeq {
namespace {

// {name, json} pairs generated from data/targets/*.json by CMakeLists.txt.
const std::pair<const char*, const char*> kTables[] = {
#include "target_tables.inc"
};

}  // namespace

TargetOps::Support TargetOps::support(const std::string& op_type) const {
  if (unsupported.count(op_type)) return Support::kNo;
  if (uncertain.count(op_type)) return Support::kUncertain;
  if (quantized.count(op_type)) return Support::kYes;
  return Support::kUnknown;
}

std::string TargetOps::note(const std::string& op_type) const {
  if (auto it = unsupported.find(op_type); it != unsupported.end()) return it->second;
  if (auto it = uncertain.find(op_type); it != uncertain.end()) return it->second;
  return "";
}

namespace {

// What a table may hold: each key's value checked; anything else is refused, so a misspelt key
// ("unsuported") or value ("kind": "NPU") is not silently ignored.
struct TableReader {
  const nlohmann::json& j;
  const std::string& what;

  std::string text(const char* key, const std::string& fallback, bool required = false) const {
    if (!j.contains(key)) {
      EDGEQ_CHECK(!required, what, ": missing '", key, "'");
      return fallback;
    }
    const nlohmann::json& v = j.at(key);
    EDGEQ_CHECK(v.is_string() && !v.get<std::string>().empty(), what, ": '", key,
                "' must be a non-empty string");
    return v.get<std::string>();
  }
  std::string one_of(const char* key, const std::string& fallback,
                     const std::vector<std::string>& accepted) const {
    const std::string v = text(key, fallback);
    std::string list;
    for (const std::string& a : accepted) {
      if (v == a) return v;
      list += (list.empty() ? "" : ", ") + a;
    }
    fail(what, ": '", key, "' is '", v, "'; expected one of ", list);
  }
  static void op_name(const std::string& op, const std::string& where) {
    bool ok = !op.empty() && std::isalpha(static_cast<unsigned char>(op[0]));
    for (char c : op) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    EDGEQ_CHECK(ok, where, ": '", op, "' is not an op type (e.g. Conv, MaxPool)");
  }
  std::set<std::string> ops(const char* key) const {
    const std::string where = what + ": '" + key + "'";
    EDGEQ_CHECK(j.contains(key), what, ": missing '", key, "'");
    const nlohmann::json& v = j.at(key);
    EDGEQ_CHECK(v.is_array() && !v.empty(), where, " must be a non-empty list of op types");
    std::set<std::string> out;
    for (const nlohmann::json& op : v) {
      EDGEQ_CHECK(op.is_string(), where, " must hold op types (strings)");
      op_name(op.get<std::string>(), where);
      EDGEQ_CHECK(out.insert(op.get<std::string>()).second, where, ": '", op.get<std::string>(),
                  "' is listed twice");
    }
    return out;
  }
  std::map<std::string, std::string> notes(const char* key) const {
    std::map<std::string, std::string> out;
    if (!j.contains(key)) return out;
    const std::string where = what + ": '" + key + "'";
    EDGEQ_CHECK(j.at(key).is_object(), where, " must be an object {op type: note}");
    for (const auto& [op, note] : j.at(key).items()) {
      op_name(op, where);
      EDGEQ_CHECK(note.is_string() && !note.get<std::string>().empty(), where, ": '", op,
                  "' needs a note (a non-empty string)");
      out[op] = note.get<std::string>();
    }
    return out;
  }
};

}  // namespace

TargetOps parse_target(const std::string& text, const std::string& what) {
  nlohmann::json j;
  try {
    j = parse_json_text(text);
  } catch (const std::exception& e) {
    fail(what, ": not valid JSON (", e.what(), ")");
  }
  EDGEQ_CHECK(j.is_object(), what, ": expected a JSON object");
  static const std::set<std::string> kKeys = {
      "target",  "name",          "kind",       "float_ops_run_on", "placement",
      "io",      "placement_why", "int8_pairs", "int8_pairs_why",   "shares_concat_encoding",
      "sources", "quantized",     "uncertain",  "unsupported"};
  for (const auto& [key, value] : j.items())
    EDGEQ_CHECK(kKeys.count(key), what, ": unknown key '", key, "'");
  const TableReader r{j, what};
  TargetOps t;
  t.target = r.text("target", "", true);
  t.name = r.text("name", t.target);
  t.is_npu = r.one_of("kind", "npu", {"npu", "cpu"}) == "npu";
  if (j.contains("shares_concat_encoding")) {
    EDGEQ_CHECK(j.at("shares_concat_encoding").is_boolean(), what,
                ": 'shares_concat_encoding' must be true or false");
    t.shares_concat_encoding = j.at("shares_concat_encoding").get<bool>();
  }
  t.placement = parse<Placement>(r.text("placement", "ort"), what + ": 'placement'");
  t.placement_why = r.text("placement_why", "");
  t.float_ops_run_on = r.text("float_ops_run_on", "the CPU");
  if (j.contains("int8_pairs")) t.int8_pairs = r.one_of("int8_pairs", "", {"saturate", "depends"});
  r.text("int8_pairs_why", "");
  t.io = r.text("io", "");
  if (j.contains("sources")) {
    const nlohmann::json& s = j.at("sources");
    bool ok = s.is_array() && !s.empty();
    for (const nlohmann::json& x : s) ok = ok && x.is_string() && !x.get<std::string>().empty();
    EDGEQ_CHECK(ok, what, ": 'sources' must be a non-empty list of strings");
  }
  t.quantized = r.ops("quantized");
  t.uncertain = r.notes("uncertain");
  t.unsupported = r.notes("unsupported");
  for (const auto& [op, note] : t.unsupported)
    EDGEQ_CHECK(!t.quantized.count(op) && !t.uncertain.count(op), what, ": '", op,
                "' is unsupported and also listed as ",
                t.quantized.count(op) ? "quantized" : "uncertain");
  return t;
}

TargetOps load_target(const std::string& name_or_path) {
  const std::string& s = name_or_path;
  if (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0)
    return parse_target(read_json_file(s, kMaxTextBytes, s), s);
  std::string names;
  for (const auto& t : kTables) {
    if (s == t.first) return parse_target(t.second, std::string("target table ") + t.first);
    names += std::string(names.empty() ? "" : ", ") + t.first;
  }
  fail("unknown target '", s, "' (choose ", names, ", or a .json op table)");
}

bool is_shape_op(const std::string& op_type) {
  static const std::set<std::string> kShapeOps = {"Shape",           "Size",  "Constant",
                                                  "ConstantOfShape", "Range", "Identity"};
  return kShapeOps.count(op_type) != 0;
}

}  // namespace edgeq
