// edgeq's one exception type: every failure of the library is an edgeq::Error whose what() is a
// single line meant for the user (it names the file, value, node or option at fault).
#pragma once
#include <stdexcept>
#include <string>

namespace edgeq {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown when a progress callback asked to stop (edgeq/progress.h); nothing was written.
struct Cancelled : Error {
  Cancelled() : Error("cancelled") {}
  explicit Cancelled(const std::string& what_was_kept) : Error(what_was_kept) {}
};

}  // namespace edgeq
