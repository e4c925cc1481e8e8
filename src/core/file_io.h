// Reading whole files and writing them atomically (temp file in the same folder, then rename).
#pragma once
#include <string>

namespace edgeq {

std::string read_file(const std::string& path);
// Writes `bytes` to `path` through `path.tmp.<pid>` and rename(2): readers never see a partial
// file and an existing file is left untouched when writing fails or the process is killed. On
// Linux the bytes are written to an unnamed file (O_TMPFILE) that is linked as the temp only when
// complete, so a killed writer leaves no temp file behind either (except in the instant between
// link and rename).
void write_file_atomic(const std::string& path, const std::string& bytes);
// Creates a directory (and parents) if missing.
void ensure_dir(const std::string& path);

}  // namespace edgeq
