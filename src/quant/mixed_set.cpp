#include "edgeq/mixed_set.h"

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_text.h"

namespace edgeq {

std::string mixed_set_to_json(const MixedSet& m) {
  nlohmann::json j = {{"format", "edgeq-mixed"}, {"version", 1}, {"a16", m.a16}};
  nlohmann::json r = nlohmann::json::array();
  for (const auto& [v, e] : m.ranking) r.push_back({{"value", v}, {"loss", e}});
  j["ranking"] = r;
  return json_text(j, 2) + "\n";
}

void save_mixed_set(const MixedSet& m, const std::string& path) {
  write_file_atomic(path, mixed_set_to_json(m));
}

std::set<std::string> parse_mixed_set(const std::string& text, const std::string& what) {
  size_t first = text.find_first_not_of(" \t\r\n");
  std::set<std::string> out;
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    nlohmann::json j;
    try {
      j = parse_json_text(text);
    } catch (const std::exception& e) {
      fail(what, ": not valid JSON (", e.what(), ")");
    }
    const nlohmann::json* list = &j;
    if (j.is_object()) {
      EDGEQ_CHECK(j.contains("a16") && j["a16"].is_array(), what,
                  ": expected an \"a16\" list of value names");
      list = &j["a16"];
    }
    for (size_t i = 0; i < list->size(); ++i) {
      EDGEQ_CHECK((*list)[i].is_string() && !(*list)[i].get<std::string>().empty(), what,
                  ": a16 entry ", i, " is not a value name");
      out.insert((*list)[i].get<std::string>());
    }
    return out;
  }
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
    if (a != std::string::npos) out.insert(line.substr(a, b - a + 1));
  }
  return out;
}

std::set<std::string> load_mixed_set(const std::string& path) {
  return parse_mixed_set(read_file(path, kMaxTextBytes), path);
}

}  // namespace edgeq
