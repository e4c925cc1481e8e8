#include "encode/encodings_json.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/file_io.h"
#include "core/json_number.h"
#include "core/json_text.h"

namespace edgeq {
namespace {

using nlohmann::json;

const char* kSections[3] = {"activation_encodings", "param_encodings", "io_encodings"};

// ---- writing ----

// An integer encoding both formats can hold, which the reader takes back: channels, all of one
// bit width and symmetry (one tensor is stored in one integer type; 1.0.0 has one "bw").
void check_writable(const std::string& name, const TensorEncoding& te) {
  EDGEQ_CHECK(!te.channels.empty(), "encoding of '", name, "' has no channels");
  for (const Encoding& e : te.channels)
    EDGEQ_CHECK(e.bitwidth == te.channels[0].bitwidth && e.symmetric == te.channels[0].symmetric,
                "encoding of '", name, "' mixes bit widths or symmetry across channels");
}

json entry_1_0_0(const std::string& name, const TensorEncoding& te) {
  if (te.is_float)
    return {
        {"name", name}, {"dtype", "FLOAT"}, {"enc_type", "PER_TENSOR"}, {"bw", te.float_bitwidth}};
  check_writable(name, te);
  const Encoding& e0 = te.channels[0];
  json scale = json::array(), offset = json::array();
  for (const Encoding& e : te.channels) {
    scale.push_back(e.scale);
    offset.push_back(e.offset);
  }
  return {{"name", name},
          {"dtype", "INT"},
          {"enc_type", te.per_channel() ? "PER_CHANNEL" : "PER_TENSOR"},
          {"bw", e0.bitwidth},
          {"is_sym", e0.symmetric},
          {"scale", scale},
          {"offset", offset}};
}

json entry_0_6_1(const std::string& name, const TensorEncoding& te) {
  if (te.is_float) return json::array({{{"bitwidth", te.float_bitwidth}, {"dtype", "float"}}});
  check_writable(name, te);
  json list = json::array();
  for (const Encoding& e : te.channels)
    list.push_back({{"bitwidth", e.bitwidth},
                    {"dtype", "int"},
                    {"is_symmetric", e.symmetric ? "True" : "False"},
                    {"max", e.max},
                    {"min", e.min},
                    {"offset", e.offset},
                    {"scale", e.scale}});
  return list;
}

// ---- reading ----

// Error context: "<what>: activation_encodings[3] ('name')".
struct Where {
  const std::string& what;
  std::string entry;
  template <typename... Args>
  [[noreturn]] void fail(const Args&... args) const {
    ::edgeq::fail(what, ": ", entry, ": ", args...);
  }
};

const json& field(const json& o, const char* key, const Where& at) {
  auto it = o.find(key);
  if (it == o.end()) at.fail("missing '", key, "'");
  return *it;
}

int int_field(const json& o, const char* key, const Where& at) {
  const json& v = field(o, key, at);
  if (!v.is_number_integer()) at.fail("'", key, "' must be an integer");
  try {
    return json_number<int>(v, "'" + std::string(key) + "'");
  } catch (const Error& e) {
    at.fail(e.what());
  }
}

bool bool_field(const json& o, const char* key, const Where& at) {
  const json& v = field(o, key, at);
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {  // AIMET 0.6.1 writes str(bool)
    std::string s = v.get<std::string>();
    if (s == "True" || s == "true") return true;
    if (s == "False" || s == "false") return false;
  }
  at.fail("'", key, "' must be true or false");
}

float scale_value(const json& v, const Where& at) {
  if (!v.is_number()) at.fail("scale must be a number");
  double s = v.get<double>();
  // A float32 scale: beyond FLT_MAX the conversion is undefined, below its range it becomes 0.
  if (!std::isfinite(s) || s <= 0 || s > std::numeric_limits<float>::max() ||
      static_cast<float>(s) <= 0)
    at.fail("scale ", s, " must be a positive float32");
  return static_cast<float>(s);
}

int64_t offset_value(const json& v, const Where& at) {
  if (!v.is_number()) at.fail("offset must be a number");
  double o = v.get<double>();
  if (!std::isfinite(o) || o != std::floor(o))
    at.fail("offset ", o, " is not an integer (zero-point shifts are not supported)");
  // Offsets of bit widths up to 32 lie in [-2^32, 2^32]; beyond int64 the conversion is undefined.
  if (std::fabs(o) > 4294967296.0) at.fail("offset ", o, " is out of range for a 32-bit encoding");
  return static_cast<int64_t>(o);
}

Encoding make_encoding(int bw, bool sym, float scale, int64_t offset, const Where& at) {
  try {
    return encoding_from_aimet(bw, sym, scale, offset);
  } catch (const Error& e) {
    at.fail(e.what());
  }
}

TensorEncoding read_1_0_0(const json& o, const Where& at) {
  if (!o.is_object()) at.fail("entry must be an object");
  const json& dtype = field(o, "dtype", at);
  const json& enc_type = field(o, "enc_type", at);
  if (!dtype.is_string() || !enc_type.is_string())
    at.fail("'dtype' and 'enc_type' must be strings");
  std::string dt = dtype.get<std::string>(), et = enc_type.get<std::string>();
  int bw = int_field(o, "bw", at);
  if (dt == "FLOAT") return TensorEncoding::floating(bw);
  if (dt != "INT") at.fail("dtype '", dt, "' is neither INT nor FLOAT");
  if (et != "PER_TENSOR" && et != "PER_CHANNEL")
    at.fail("enc_type '", et, "' is not supported (PER_TENSOR or PER_CHANNEL)");
  bool sym = bool_field(o, "is_sym", at);
  const json& scale = field(o, "scale", at);
  const json& offset = field(o, "offset", at);
  if (!scale.is_array() || !offset.is_array() || scale.empty() || scale.size() != offset.size())
    at.fail("'scale' and 'offset' must be non-empty lists of the same length");
  if (et == "PER_TENSOR" && scale.size() != 1)
    at.fail("PER_TENSOR encoding with ", scale.size(), " scales");
  TensorEncoding te;
  te.axis = et == "PER_CHANNEL" ? 0 : -1;
  for (size_t i = 0; i < scale.size(); ++i)
    te.channels.push_back(
        make_encoding(bw, sym, scale_value(scale[i], at), offset_value(offset[i], at), at));
  return te;
}

TensorEncoding read_0_6_1(const json& list, const Where& at) {
  if (!list.is_array() || list.empty()) at.fail("must be a non-empty list of encodings");
  TensorEncoding te;
  for (const json& o : list) {
    if (!o.is_object()) at.fail("encodings must be objects");
    const size_t c = te.channels.size();
    std::string dt = "int";
    if (o.contains("dtype")) {
      if (!o["dtype"].is_string()) at.fail("'dtype' must be a string");
      dt = o["dtype"].get<std::string>();
    }
    int bw = int_field(o, "bitwidth", at);
    if (dt == "float") {
      if (list.size() != 1) at.fail("a float encoding must be the list's only entry");
      return TensorEncoding::floating(bw);
    }
    if (dt != "int") at.fail("dtype '", dt, "' is neither int nor float");
    bool sym = bool_field(o, "is_symmetric", at);
    // One tensor is stored in one integer type: its channels share bit width and symmetry.
    if (c > 0 && (bw != te.channels[0].bitwidth || sym != te.channels[0].symmetric))
      at.fail("channel ", c, " has bitwidth ", bw, (sym ? " symmetric" : " asymmetric"),
              ", channel 0 bitwidth ", te.channels[0].bitwidth,
              (te.channels[0].symmetric ? " symmetric" : " asymmetric"),
              " (one tensor's channels share both)");
    te.channels.push_back(make_encoding(bw, sym, scale_value(field(o, "scale", at), at),
                                        offset_value(field(o, "offset", at), at), at));
  }
  te.axis = te.channels.size() > 1 ? 0 : -1;
  return te;
}

}  // namespace

std::string encodings_to_json(const EncodingSet& set, const std::string& version) {
  EDGEQ_CHECK(version == "1.0.0" || version == "0.6.1", "encodings format '", version,
              "' is not supported (1.0.0 or 0.6.1)");
  const std::map<std::string, TensorEncoding>* maps[3] = {&set.activations, &set.params, &set.io};
  json j = {{"version", version}};
  for (int s = 0; s < 3; ++s) {
    if (s == 2 && set.io.empty()) break;
    json section = version == "1.0.0" ? json::array() : json::object();
    for (const auto& kv : *maps[s]) {
      if (version == "1.0.0")
        section.push_back(entry_1_0_0(kv.first, kv.second));
      else
        section[kv.first] = entry_0_6_1(kv.first, kv.second);
    }
    j[kSections[s]] = std::move(section);
  }
  return json_text(j, 2) + "\n";
}

EncodingSet encodings_from_json(const std::string& text, const std::string& what) {
  json j;
  try {
    j = parse_json_text(text);
  } catch (const json::exception& e) {
    fail(what, ": not valid JSON (", e.what(), ")");
  }
  EDGEQ_CHECK(j.is_object(), what, ": top level must be an object");
  const int sections = j.contains(kSections[2]) ? 3 : 2;  // io_encodings only when quantized I/O
  for (int s = 0; s < 2; ++s)
    EDGEQ_CHECK(j.contains(kSections[s]), what, ": missing '", kSections[s], "'");
  bool lists = j[kSections[0]].is_array();
  for (int i = 0; i < sections; ++i) {
    const char* s = kSections[i];
    EDGEQ_CHECK(lists ? j[s].is_array() : j[s].is_object(), what, ": '", s, "' must be ",
                lists ? "a list (format 1.0.0, as activation_encodings)"
                      : "an object (format 0.6.1, as activation_encodings)");
  }
  if (j.contains("version")) {
    EDGEQ_CHECK(j["version"].is_string(), what, ": 'version' must be a string");
    std::string v = j["version"].get<std::string>();
    if (lists)
      EDGEQ_CHECK(v.rfind("1.", 0) == 0, what, ": version '", v,
                  "' does not match the list form of format 1.0.0");
    else
      EDGEQ_CHECK(v.rfind("0.", 0) == 0, what, ": version '", v,
                  "' does not match the dict form of format 0.6.1");
  }

  EncodingSet set;
  std::map<std::string, TensorEncoding>* maps[3] = {&set.activations, &set.params, &set.io};
  for (int s = 0; s < sections; ++s) {
    const json& section = j[kSections[s]];
    if (lists) {
      for (size_t i = 0; i < section.size(); ++i) {
        const json& o = section[i];
        std::string name;
        if (o.is_object() && o.contains("name") && o["name"].is_string())
          name = o["name"].get<std::string>();
        Where at{what, std::string(kSections[s]) + "[" + std::to_string(i) + "]" +
                           (name.empty() ? "" : " ('" + name + "')")};
        if (name.empty()) at.fail("missing or empty 'name'");
        if (maps[s]->count(name)) at.fail("duplicate name");
        (*maps[s])[name] = read_1_0_0(o, at);
      }
    } else {
      for (auto it = section.begin(); it != section.end(); ++it) {
        Where at{what, std::string(kSections[s]) + " '" + it.key() + "'"};
        if (it.key().empty()) at.fail("empty name");
        (*maps[s])[it.key()] = read_0_6_1(it.value(), at);
      }
    }
  }
  return set;
}

void save_encodings(const EncodingSet& set, const std::string& path, const std::string& version) {
  write_file_atomic(path, encodings_to_json(set, version));
}

EncodingSet load_encodings(const std::string& path) {
  const std::string what = "encodings file " + path;
  EncodingSet set = encodings_from_json(read_json_file(path, kMaxTextBytes, what), what);
  EDGEQ_CHECK(!set.activations.empty() || !set.params.empty() || !set.io.empty(), what,
              " holds no encoding (activation_encodings and param_encodings are empty)");
  return set;
}

}  // namespace edgeq
