// JSON text for documents whose strings are bytes, not always UTF-8: file names on Linux are any
// bytes but '/' and NUL, and they reach every report (images, models, cache keys). One writer and
// one reader for every JSON file edgeq writes or reads, so that no report is lost to a name.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace edgeq {

// Whether `s` is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_utf8(std::string_view s);

// `j` as JSON text (`indent` as nlohmann::json::dump: -1 for one line). Every string, key or
// value, keeps all its bytes: a byte that is not part of well-formed UTF-8 is written as the
// escape \udcXX (XX = the byte, 80-ff), the lossless form of Python's "surrogateescape" (PEP 383;
// json.load then os.fsencode give the bytes back). The text stays valid UTF-8 that every JSON
// reader accepts; documents whose strings are all UTF-8 are written exactly as dump() would.
std::string json_text(const nlohmann::json& j, int indent = -1);

// Parses JSON text as nlohmann::json::parse does (and throws its parse_error), turning each
// \udc80-\udcff escape that is not the second half of a surrogate pair back into the byte it
// stands for: the inverse of json_text.
nlohmann::json parse_json_text(std::string_view text);

// Parses CBOR as nlohmann::json::from_cbor does (and throws its exceptions), refusing nesting
// deeper than `max_depth` arrays and objects with a parse_error before going further: nlohmann's
// CBOR reader recurses once per level, so a file of nested arrays overflowed the stack.
nlohmann::json json_from_cbor(std::string_view bytes, int max_depth = 64);

// The text of a JSON file holding an object or an array (edgeq/files.h read_file_of_format): one
// that starts otherwise is refused as "<what>: not valid JSON" having read its first bytes only.
std::string read_json_file(const std::string& path, uint64_t max_bytes, const std::string& what);

}  // namespace edgeq
