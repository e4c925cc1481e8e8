// SHA-256 (FIPS 180-4) of a byte string, for identifying model files in stats and reports.
#pragma once
#include <string>

namespace edgeq {

// Lower-case hex digest (64 characters).
std::string sha256_hex(const std::string& bytes);

}  // namespace edgeq
