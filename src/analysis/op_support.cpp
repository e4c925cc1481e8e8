#include "analysis/op_support.h"

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

TargetOps parse_target(const std::string& text, const std::string& what) {
  nlohmann::json j;
  try {
    j = parse_json_text(text);
  } catch (const std::exception& e) {
    fail(what, ": not valid JSON (", e.what(), ")");
  }
  EDGEQ_CHECK(j.is_object(), what, ": expected a JSON object");
  TargetOps t;
  try {
    t.target = j.at("target").get<std::string>();
    t.name = j.value("name", t.target);
    t.is_npu = j.value("kind", std::string("npu")) == "npu";
    t.shares_concat_encoding = j.value("shares_concat_encoding", false);
    t.placement = j.value("placement", std::string("ort"));
    t.placement_why = j.value("placement_why", std::string());
    t.float_ops_run_on = j.value("float_ops_run_on", std::string("the CPU"));
    t.int8_pairs = j.value("int8_pairs", std::string());
    t.io = j.value("io", std::string());
    EDGEQ_CHECK(t.int8_pairs.empty() || t.int8_pairs == "saturate" || t.int8_pairs == "depends",
                what, ": int8_pairs is '", t.int8_pairs, "'; expected saturate or depends");
    for (const auto& op : j.at("quantized")) t.quantized.insert(op.get<std::string>());
    if (j.contains("uncertain"))
      for (const auto& [op, note] : j.at("uncertain").items())
        t.uncertain[op] = note.get<std::string>();
    if (j.contains("unsupported"))
      for (const auto& [op, note] : j.at("unsupported").items())
        t.unsupported[op] = note.get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    fail(what, ": bad target table (", e.what(), ")");
  }
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
