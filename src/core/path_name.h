// Paths that come as text from outside C strings (Python str / bytes, JSON strings) may hold a
// NUL byte, where every file call would cut them ("z.onnx\0.evil" opens z.onnx): such a path is
// refused, never shortened.
#pragma once
#include <string>

namespace edgeq {

// Throws edgeq::Error naming `what` (the option or argument) when `path` holds a NUL byte.
void check_path_name(const std::string& path, const std::string& what);

}  // namespace edgeq
