// Shared by the libFuzzer harnesses (fuzz_*.cpp): what counts as a finding. Bad input must end in
// edgeq::Error with one non-empty line; a crash, a sanitizer report, any other exception or a
// multi-line message is a finding (abort, so libFuzzer saves the input).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/error.h"

namespace edgeq::fuzz {

inline std::string bytes_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs f(); returns true when it finished without an error.
template <typename F>
bool accepts(F f) {
  try {
    f();
    return true;
  } catch (const Error& e) {
    const std::string m = e.what();
    if (m.empty() || m.find('\n') != std::string::npos) {
      std::fprintf(stderr, "finding: error message is not one line: [%s]\n", m.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "finding: exception other than edgeq::Error: %s\n", e.what());
    std::abort();
  }
  return false;
}

// A property of accepted input that must hold (a round trip, say).
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "finding: %s\n", what);
  std::abort();
}

}  // namespace edgeq::fuzz
