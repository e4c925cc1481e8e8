#include "core/warning.h"

#include <iostream>
#include <mutex>

#include "core/printable.h"

namespace edgeq {
namespace {

std::mutex& handler_mutex() {
  static std::mutex m;
  return m;
}

WarningHandler& installed() {
  static WarningHandler h;
  return h;
}

}  // namespace

WarningHandler set_warning_handler(WarningHandler handler) {
  std::lock_guard<std::mutex> lock(handler_mutex());
  WarningHandler previous = std::move(installed());
  installed() = std::move(handler);
  return previous;
}

void warn(const std::string& message) {
  std::lock_guard<std::mutex> lock(handler_mutex());
  if (installed())
    installed()(message);
  else
    std::cerr << "edgeq: warning: " << printable(message) << "\n" << std::flush;
}

}  // namespace edgeq
