#include "core/json_number.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/error.h"

namespace edgeq {

template <typename T>
T json_number(const nlohmann::json& v, const std::string& what) {
  EDGEQ_CHECK(v.is_number(), what, " must be a number, not ", v.dump());
  if constexpr (std::is_integral_v<T>) {
    using Limits = std::numeric_limits<T>;
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      EDGEQ_CHECK(u <= static_cast<uint64_t>(Limits::max()), what, " is out of range: ", v.dump());
      return static_cast<T>(u);
    }
    if (v.is_number_integer()) {
      const int64_t i = v.get<int64_t>();
      EDGEQ_CHECK(i >= 0 || Limits::is_signed, what, " must not be negative: ", v.dump());
      const bool fits = i < 0 ? i >= static_cast<int64_t>(Limits::min())
                              : static_cast<uint64_t>(i) <= static_cast<uint64_t>(Limits::max());
      EDGEQ_CHECK(fits, what, " is out of range: ", v.dump());
      return static_cast<T>(i);
    }
    const double d = v.get<double>();
    EDGEQ_CHECK(std::isfinite(d) && d == std::floor(d), what, " must be a whole number, not ",
                v.dump());
    EDGEQ_CHECK(d >= 0 || Limits::is_signed, what, " must not be negative: ", v.dump());
    // T's range is [-2^digits, 2^digits) (signed) or [0, 2^digits): both bounds exact in double.
    const double bound = std::ldexp(1.0, Limits::digits);
    EDGEQ_CHECK(d < bound && (!Limits::is_signed || d >= -bound), what,
                " is out of range: ", v.dump());
    return static_cast<T>(d);
  } else {
    const double d = v.get<double>();
    EDGEQ_CHECK(!(std::isfinite(d) && std::fabs(d) > std::numeric_limits<T>::max()), what,
                " is out of range: ", v.dump());
    return static_cast<T>(d);
  }
}

template <typename T>
T json_number_at(const nlohmann::json& j, const char* key, const std::string& what) {
  const std::string named = what + " '" + key + "'";
  EDGEQ_CHECK(j.is_object() && j.contains(key), what, ": missing '", key, "'");
  return json_number<T>(j.at(key), named);
}

#define EDGEQ_JSON_NUMBER(T)                                            \
  template T json_number<T>(const nlohmann::json&, const std::string&); \
  template T json_number_at<T>(const nlohmann::json&, const char*, const std::string&);
EDGEQ_JSON_NUMBER(int)
EDGEQ_JSON_NUMBER(int64_t)
EDGEQ_JSON_NUMBER(uint64_t)
EDGEQ_JSON_NUMBER(float)
EDGEQ_JSON_NUMBER(double)
#undef EDGEQ_JSON_NUMBER

}  // namespace edgeq
