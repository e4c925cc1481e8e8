// Numbers read from JSON or CBOR that a user or another tool wrote: nlohmann's get<T>() converts
// with a plain cast, which wraps an integer beyond T (4294967304 becomes 8 as int) and is
// undefined behaviour for a float beyond T (2.2e46 as uint64_t, 1e300 as float). One checked
// reader for every file edgeq takes in.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace edgeq {

// `v` as T, or edgeq::Error naming `what` (e.g. "stats file s.cbor: 'images'"): not a number;
// for an integer T a fraction, a negative value for an unsigned T, or a value beyond T; for float
// a finite value beyond float32 (infinities and NaN pass: their callers judge them).
template <typename T>
T json_number(const nlohmann::json& v, const std::string& what);

// `j[key]` as T (what + " '" + key + "'" in errors, including a missing key).
template <typename T>
T json_number_at(const nlohmann::json& j, const char* key, const std::string& what);

}  // namespace edgeq
