// Where the library's warnings go (edgeq/warning.h): warn() passes one message to the handler the
// process installed, by default a line "edgeq: warning: <message>" on stderr, printable().
#pragma once
#include <string>

#include "core/error.h"
#include "edgeq/warning.h"

namespace edgeq {

void warn(const std::string& message);

template <typename... Args>
void warn_that(const Args&... args) {
  warn(detail::concat(args...));
}

}  // namespace edgeq
