#include "json_schema.h"

#include <regex>
#include <set>

namespace edgeq::test {
namespace {

bool has_type(const nlohmann::json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "number") return v.is_number();
  if (t == "integer")
    return v.is_number_integer() ||
           (v.is_number_float() &&
            v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  return false;
}

struct Validator {
  const nlohmann::json& root;
  std::vector<std::string> errors;

  void fail(const std::string& path, const std::string& what) {
    errors.push_back((path.empty() ? "/" : path) + ": " + what);
  }

  void check(const nlohmann::json& s, const nlohmann::json& v, const std::string& path) {
    static const std::set<std::string> known = {
        "$schema",  "title",   "description", "definitions", "$ref",
        "type",     "enum",    "minimum",     "maximum",     "minItems",
        "maxItems", "pattern", "required",    "properties",  "additionalProperties",
        "items"};
    for (const auto& [k, x] : s.items())
      if (!known.count(k)) fail(path, "schema keyword '" + k + "' is not supported");
    if (s.contains("$ref")) {
      const std::string ref = s["$ref"];
      const std::string prefix = "#/definitions/";
      if (ref.rfind(prefix, 0) != 0 || !root["definitions"].contains(ref.substr(prefix.size()))) {
        fail(path, "unresolved $ref " + ref);
        return;
      }
      check(root["definitions"][ref.substr(prefix.size())], v, path);
    }
    if (s.contains("type")) {
      bool ok = false;
      if (s["type"].is_array()) {
        for (const auto& t : s["type"]) ok = ok || has_type(v, t);
      } else {
        ok = has_type(v, s["type"]);
      }
      if (!ok) {
        fail(path, "expected type " + s["type"].dump() + ", got " + v.dump().substr(0, 60));
        return;
      }
    }
    if (s.contains("enum")) {
      bool ok = false;
      for (const auto& e : s["enum"]) ok = ok || e == v;
      if (!ok) fail(path, v.dump().substr(0, 60) + " is not one of " + s["enum"].dump());
    }
    if (v.is_number()) {
      if (s.contains("minimum") && v.get<double>() < s["minimum"].get<double>())
        fail(path, v.dump() + " < minimum " + s["minimum"].dump());
      if (s.contains("maximum") && v.get<double>() > s["maximum"].get<double>())
        fail(path, v.dump() + " > maximum " + s["maximum"].dump());
    }
    if (v.is_string() && s.contains("pattern") &&
        !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>())))
      fail(path, v.dump() + " does not match " + s["pattern"].get<std::string>());
    if (v.is_array()) {
      if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>())
        fail(path, "fewer than " + s["minItems"].dump() + " items");
      if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>())
        fail(path, "more than " + s["maxItems"].dump() + " items");
      if (s.contains("items"))
        for (size_t i = 0; i < v.size(); ++i)
          check(s["items"], v[i], path + "/" + std::to_string(i));
    }
    if (v.is_object()) {
      if (s.contains("required"))
        for (const auto& r : s["required"])
          if (!v.contains(r.get<std::string>()))
            fail(path, "missing required '" + r.get<std::string>() + "'");
      const nlohmann::json props = s.value("properties", nlohmann::json::object());
      for (const auto& [k, x] : v.items()) {
        if (props.contains(k))
          check(props[k], x, path + "/" + k);
        else if (s.contains("additionalProperties") && s["additionalProperties"] == false)
          fail(path, "property '" + k + "' is not allowed");
      }
    }
  }
};

}  // namespace

std::vector<std::string> validate_json_schema(const nlohmann::json& schema,
                                              const nlohmann::json& doc) {
  Validator v{schema, {}};
  v.check(schema, doc, "");
  return v.errors;
}

}  // namespace edgeq::test
