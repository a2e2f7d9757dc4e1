#include <catch2/catch.hpp>

#include <string>

#include "tputrain/core/utf8.h"

using tputrain::core::IsValidUtf8;

TEST_CASE("IsValidUtf8 takes well-formed UTF-8 only", "[unit]") {
  using namespace std::string_literals;
  for (const auto& good : {""s, "plain"s, "r\xc3\xa9sum\xc3\xa9"s, "\xe6\x97\xa5"s, "\xf0\x9f\x98\x80"s,
                           "\xed\x9f\xbf"s, "\xf4\x8f\xbf\xbf"s, "nul \0 inside"s}) {
    INFO(good);
    CHECK(IsValidUtf8(good));
  }
  // Truncated, overlong, a surrogate, past U+10FFFF, a five-byte form, a lone continuation.
  for (const auto& bad : {"\xff"s, "\xc3"s, "a\xc3("s, "\xc0\xaf"s, "\xe0\x80\xaf"s, "\xed\xa0\x80"s,
                          "\xf4\x90\x80\x80"s, "\xf8\x88\x80\x80\x80"s, "\x80"s, "\xe6\x97"s}) {
    INFO(bad);
    CHECK_FALSE(IsValidUtf8(bad));
  }
}

TEST_CASE("Utf8Excerpt cuts between characters and replaces what is not UTF-8", "[unit]") {
  using namespace std::string_literals;
  using tputrain::core::Utf8Excerpt;
  CHECK(Utf8Excerpt("plain", 10) == "plain");
  CHECK(Utf8Excerpt("plain", 3, "...") == "pla...");
  // "é" is two bytes: a cut inside it leaves it out whole.
  CHECK(Utf8Excerpt("r\xc3\xa9sum\xc3\xa9"s, 2, "...") == "r...");
  CHECK(Utf8Excerpt("r\xc3\xa9sum\xc3\xa9"s, 3) == "r\xc3\xa9");
  CHECK(Utf8Excerpt("\xf0\x9f\x98\x80!"s, 3, "~") == "~");
  // Latin-1 and a lone continuation byte become U+FFFD, one each.
  CHECK(Utf8Excerpt("caf\xe9 \x80"s, 100) == "caf\xef\xbf\xbd \xef\xbf\xbd");
  CHECK(Utf8Excerpt("a\xc3("s, 100) == "a\xef\xbf\xbd(");
  for (const auto& text : {"\xff\xfe"s, "\xe6\x97"s, "x\xed\xa0\x80y"s, "\xf4\x90\x80\x80"s}) {
    for (size_t max : {0, 1, 2, 3, 4, 8}) {
      auto excerpt = Utf8Excerpt(text, max, "...");
      INFO(text << " at " << max);
      CHECK(IsValidUtf8(excerpt));
    }
  }
}

TEST_CASE("OneLineExcerpt puts a server's lines on one, then cuts as Utf8Excerpt", "[unit]") {
  using tputrain::core::OneLineExcerpt;
  CHECK(OneLineExcerpt("a\nb\r\n\tc  d\n", 100) == "a b c d");
  CHECK(OneLineExcerpt("\n\nlead", 100) == "lead");
  CHECK(OneLineExcerpt("caf\xc3\xa9\nbar", 5, "...") == "caf\xc3\xa9...");
  CHECK(OneLineExcerpt(std::string(100, '\n'), 10).empty());
  CHECK(OneLineExcerpt("x\xff\ny", std::string::npos) == "x\xef\xbf\xbd y");
}
