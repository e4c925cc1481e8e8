#include "core/path_name.h"

#include <algorithm>

#include "core/error.h"

namespace edgeq {

void check_path_name(const std::string& path, const std::string& what) {
  const size_t nul = path.find('\0');
  EDGEQ_CHECK(nul == std::string::npos, what, ": the path holds a NUL byte (after '",
              path.substr(0, std::min<size_t>(nul, 40)), nul > 40 ? "...'" : "'",
              "), which no file name can; refused rather than cut there");
}

}  // namespace edgeq
