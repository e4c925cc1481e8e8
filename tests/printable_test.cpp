// printable() (core/printable.h), the one form in which outside text is printed, against
// hand-written cases: what a terminal would act on is escaped, every other character is kept.
#include "core/printable.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "test_util.h"

namespace edgeq {
namespace {

TEST(Printable, EscapesWhatATerminalActsOn) {
  EXPECT_EQ(printable("plain name.jpg"), "plain name.jpg");
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  // ESC / OSC (set the window title), BEL, NUL, DEL.
  EXPECT_EQ(printable(std::string("\x1b]0;title\x07", 10)), "\\x1b]0;title\\x07");
  EXPECT_EQ(printable(std::string("x\0y\x7f", 4)), "x\\x00y\\x7f");
  // U+202E (right-to-left override) would show "gpj.exe" as "exe.jpg"; U+200F, U+2066, U+FEFF.
  EXPECT_EQ(printable("evil\xe2\x80\xaegpj.exe"), "evil\\u202egpj.exe");
  EXPECT_EQ(printable("a\xe2\x80\x8f"
                      "b\xe2\x81\xa6"
                      "c\xef\xbb\xbf"),
            "a\\u200fb\\u2066c\\ufeff");
  // C1 controls as UTF-8 (U+009B is CSI on some terminals).
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\u009b31m");
  // Bytes that are not UTF-8, alone or in a broken sequence; an overlong '/' too.
  EXPECT_EQ(printable("caf\xe9"), "caf\\xe9");
  EXPECT_EQ(printable("\xe2\x80"), "\\xe2\\x80");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");
  // Other UTF-8 text is kept as it is.
  EXPECT_EQ(printable("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"),
            "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
}

TEST(Printable, PathsAreShortenedAroundTheMiddle) {
  EXPECT_EQ(printable_path("short/name.jpg"), "short/name.jpg");
  const std::string long_path = "/data/" + std::string(300, 'a') + "/end.jpg";
  const std::string p = printable_path(long_path, 40);
  EXPECT_EQ(p.size(), 40u);
  EXPECT_EQ(p.substr(0, 6), "/data/");
  EXPECT_EQ(p.substr(p.size() - 8), "/end.jpg");
  EXPECT_NE(p.find("..."), std::string::npos);
  // Never cut inside a character.
  std::string wide;
  for (int i = 0; i < 50; ++i) wide += "\xe6\x97\xa5";
  const std::string w = printable_path(wide, 20);
  EXPECT_EQ(printable(w), w) << "a cut UTF-8 sequence would be escaped";
}

TEST(Printable, ControlCharactersAreFound) {
  EXPECT_FALSE(has_control_characters("release-1.2 caf\xc3\xa9"));
  EXPECT_FALSE(has_control_characters("caf\xe9"));  // a byte that is not UTF-8: kept, escaped
  EXPECT_TRUE(has_control_characters("a\tb"));
  EXPECT_TRUE(has_control_characters("\x1b[31m"));
  EXPECT_TRUE(has_control_characters("x\xe2\x80\xaey"));
  EXPECT_TRUE(has_control_characters("\xc2\x85"));
}

TEST(Printable, ErrorsAreOneEscapedLine) {
  const std::string msg =
      test::error_of([] { fail("cannot read ", "a\nb\x1b[2J\xe2\x80\xae.onnx", ": gone"); });
  EXPECT_EQ(msg, "cannot read a\\nb\\x1b[2J\\u202e.onnx: gone");
}

}  // namespace
}  // namespace edgeq
