#include "encode/quant_config.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/json_text.h"

namespace edgeq {

QuantConfig config_for_scheme(Scheme scheme) {
  QuantConfig c;
  switch (scheme) {
    case Scheme::kW8A8:
      c.activation_bits = 8;
      return c;
    case Scheme::kW8A16:
      c.activation_bits = 16;
      return c;
  }
  fail("scheme: ", edgeq::name(scheme));  // an out-of-range value: name() throws
}

std::map<std::string, TensorOverride> parse_overrides(const std::string& text,
                                                      const std::string& what) {
  nlohmann::json j;
  try {
    j = parse_json_text(text);
  } catch (const nlohmann::json::exception& e) {
    fail(what, ": not valid JSON (", e.what(), ")");
  }
  EDGEQ_CHECK(j.is_object(), what, ": overrides must be an object of tensor name -> override");
  std::map<std::string, TensorOverride> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& name = it.key();
    const nlohmann::json& v = it.value();
    TensorOverride o;
    if (v.is_string()) {
      EDGEQ_CHECK(v.get<std::string>() == "float", what, ": tensor '", name,
                  "': the only string override is \"float\"");
      o.is_float = true;
      out[name] = o;
      continue;
    }
    EDGEQ_CHECK(v.is_object(), what, ": tensor '", name,
                "': override must be an object or \"float\"");
    for (auto f = v.begin(); f != v.end(); ++f) {
      const std::string& key = f.key();
      const nlohmann::json& x = f.value();
      if (key == "bitwidth") {
        // Compared as JSON values: get<int>() first would wrap 4294967304 to 8.
        const bool ok = x.is_number_integer() && (x == 8 || x == 16);
        EDGEQ_CHECK(ok, what, ": tensor '", name, "': bitwidth must be 8 or 16");
        o.bitwidth = x == 8 ? 8 : 16;
      } else if (key == "min" || key == "max") {
        EDGEQ_CHECK(x.is_number() && std::isfinite(x.get<double>()), what, ": tensor '", name,
                    "': ", key, " must be a finite number");
        (key == "min" ? o.min : o.max) = x.get<double>();
      } else if (key == "symmetric") {
        EDGEQ_CHECK(x.is_boolean(), what, ": tensor '", name, "': symmetric must be true or false");
        o.symmetric = x.get<bool>();
      } else if (key == "float") {
        EDGEQ_CHECK(x.is_boolean(), what, ": tensor '", name, "': float must be true or false");
        o.is_float = x.get<bool>();
      } else {
        fail(what, ": tensor '", name, "': unknown field '", key,
             "' (bitwidth, min, max, symmetric, float)");
      }
    }
    EDGEQ_CHECK(o.min.has_value() == o.max.has_value(), what, ": tensor '", name,
                "': give both min and max, or neither");
    if (o.min) EDGEQ_CHECK(*o.min <= *o.max, what, ": tensor '", name, "': min > max");
    out[name] = o;
  }
  return out;
}

}  // namespace edgeq
