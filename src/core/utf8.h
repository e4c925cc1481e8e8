// UTF-8 as it is read everywhere in edgeq: well-formed sequences only (no overlong forms, no
// surrogates, nothing above U+10FFFF). File names and other outside text are any bytes; the JSON
// writer (core/json_text.h) and the printable form (core/printable.h) both walk them with this.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace edgeq {

// Length of the well-formed UTF-8 sequence starting at s[i] (1 for ASCII); 0 when none starts
// there (a byte that is not UTF-8).
size_t utf8_length(std::string_view s, size_t i);
// The code point of the well-formed sequence of `n` bytes at s[i] (n from utf8_length).
uint32_t utf8_code_point(std::string_view s, size_t i, size_t n);

}  // namespace edgeq
