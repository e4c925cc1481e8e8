// JSON text for byte-string names (core/json_text.h) against hand-written cases: the UTF-8 check
// on the forms the standard forbids, the \udcXX escape of each byte outside UTF-8 (in values and
// keys, beside NUL and backslashes), surrogate pairs left alone when reading, and random byte
// strings round-tripping exactly.
#include "core/json_text.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace edgeq {
namespace {
using nlohmann::json;

TEST(JsonText, Utf8CheckRefusesWhatTheStandardForbids) {
  EXPECT_TRUE(is_utf8(""));
  EXPECT_TRUE(is_utf8("plain.jpg"));
  EXPECT_TRUE(is_utf8("caf\xc3\xa9"));                 // é
  EXPECT_TRUE(is_utf8("\xe2\x82\xac"));                // €
  EXPECT_TRUE(is_utf8("\xf0\x9f\x92\x80"));            // U+1F480
  EXPECT_TRUE(is_utf8("\xf4\x8f\xbf\xbf"));            // U+10FFFF
  EXPECT_TRUE(is_utf8(std::string("a\0b", 3)));        // NUL is a character
  EXPECT_FALSE(is_utf8("\xff"));                       // never in UTF-8
  EXPECT_FALSE(is_utf8("a\x80"));                      // a lone continuation byte
  EXPECT_FALSE(is_utf8("\xc0\xaf"));                   // overlong '/'
  EXPECT_FALSE(is_utf8("\xe0\x80\xaf"));               // overlong '/'
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));               // surrogate U+D800
  EXPECT_FALSE(is_utf8("\xf4\x90\x80\x80"));           // above U+10FFFF
  EXPECT_FALSE(is_utf8("\xe2\x82"));                   // cut short
  EXPECT_FALSE(is_utf8("\xc3\xa9\xe9t\xc3\xa9.jpg"));  // Latin-1 é between UTF-8 ones
}

TEST(JsonText, BytesOutsideUtf8BecomeSurrogateEscapes) {
  EXPECT_EQ(json_text(json::array({"a\xff"
                                   "b.jpg"})),
            R"(["a\udcffb.jpg"])");
  EXPECT_EQ(json_text(json{{"k\xfe", "v\x80"}}), R"({"k\udcfe":"v\udc80"})");
  // A cut-short sequence is one escape per byte; valid characters beside it stay themselves.
  EXPECT_EQ(json_text(json("\xe2\x82 \xc3\xa9")), "\"\\udce2\\udc82 \xc3\xa9\"");
  // NUL and backslashes next to such bytes keep their own escapes.
  EXPECT_EQ(json_text(json(std::string("x\0\\\xfe", 4))), R"("x\u0000\\\udcfe")");
  // Other strings of the same document are written as dump() writes them.
  const json doc = {{"path", "p\xff"}, {"note", std::string("tab\there\0", 9)}, {"n", 3}};
  EXPECT_EQ(json_text(doc, 2),
            "{\n  \"n\": 3,\n  \"note\": \"tab\\there\\u0000\",\n  \"path\": \"p\\udcff\"\n}");
}

TEST(JsonText, Utf8DocumentsAreWrittenAsDumpWritesThem) {
  const json doc = {{"image", "caf\xc3\xa9/\xf0\x9f\x92\x80.jpg"},
                    {"list", {1, 2.5, nullptr, "a\\b", std::string("\0", 1)}}};
  EXPECT_EQ(json_text(doc), doc.dump());
  EXPECT_EQ(json_text(doc, 2), doc.dump(2));
}

TEST(JsonText, ReadingTurnsLoneLowSurrogatesBackIntoBytes) {
  EXPECT_EQ(parse_json_text(R"(["a\udcffb"])").at(0),
            "a\xff"
            "b");
  EXPECT_EQ(parse_json_text(R"({"\uDCFE":1})").begin().key(), "\xfe");  // upper-case hex
  // A surrogate pair is one character (U+1F480), not a byte.
  EXPECT_EQ(parse_json_text(R"("\ud83d\udc80")"), "\xf0\x9f\x92\x80");
  // An escaped backslash followed by "udcff" is text.
  EXPECT_EQ(parse_json_text(R"("\\udcff")"), "\\udcff");
  EXPECT_EQ(parse_json_text(R"("\u0000\udc80")"), std::string("\0\x80", 2));
  EXPECT_THROW(parse_json_text(R"(["\udcff")"), json::parse_error);  // still a parser
}

TEST(JsonText, RandomByteStringsRoundTripExactly) {
  std::mt19937 rng(27);
  std::uniform_int_distribution<int> byte(0, 255), length(0, 12);
  for (int round = 0; round < 500; ++round) {
    json doc = json::object();
    for (int k = 0; k < 4; ++k) {
      std::string key, value;
      for (int n = length(rng); n > 0; --n) key += static_cast<char>(byte(rng));
      for (int n = length(rng); n > 0; --n) value += static_cast<char>(byte(rng));
      doc[key] = json::array({value, k});
    }
    const std::string text = json_text(doc, round % 2 ? 2 : -1);
    ASSERT_TRUE(is_utf8(text)) << text;
    ASSERT_EQ(parse_json_text(text), doc) << text;
  }
}

}  // namespace
}  // namespace edgeq
