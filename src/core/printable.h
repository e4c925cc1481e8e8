// Text from outside the program (file names, tags, target and value names, a file's lines) made
// safe to print on a terminal or into a log: nothing it holds can move the cursor, set the
// window title (ESC / OSC sequences), forge a line, or reorder what follows it on screen (bidi
// controls such as U+202E). Every message and printed line that carries such text goes through
// printable(); error messages do so in fail() (core/error.h).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace edgeq {

// `s` with \n, \r and \t as those two-character escapes; other control characters (C0 and DEL)
// and bytes that are not UTF-8 as \xHH; C1 controls (U+0080-U+009F), bidi and invisible
// formatting characters (U+061C, U+200B-U+200F, U+2028-U+202E, U+2060-U+2069, U+FEFF) as \uHHHH.
// Everything else, including other UTF-8 text, is kept.
std::string printable(std::string_view s);

// Whether `s` holds a character printable() escapes other than a byte that is not UTF-8: a
// control (C0, DEL, C1) or a bidi / invisible formatting character.
bool has_control_characters(std::string_view s);

// A path for a message: printable(), and when that is longer than `max_chars`, its start and end
// around "...", so a message never carries a whole line of a file that was mistaken for a list.
std::string printable_path(std::string_view path, size_t max_chars = 96);

}  // namespace edgeq
