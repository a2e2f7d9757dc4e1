#include <catch2/catch.hpp>

#include "tputrain/core/text.h"

namespace {

using tputrain::core::Newlines;
using tputrain::core::PrintableText;

TEST_CASE("PrintableText shows control characters and stray bytes instead of sending them", "[text]") {
  CHECK(PrintableText("plain\ttext r\xc3\xa9sum\xc3\xa9") == "plain\ttext r\xc3\xa9sum\xc3\xa9");
  CHECK(PrintableText("a\nb\r\x1b[2J\x07") == "a\\nb\\r\\x1b[2J\\x07");
  CHECK(PrintableText("a\nb\x1b]0;title\x07", Newlines::kKeep) == "a\nb\\x1b]0;title\\x07");
  CHECK(PrintableText("\xc2\x9b"
                      "31m csi") == "\\x9b31m csi");  // C1 CSI, as UTF-8
  CHECK(PrintableText("caf\xe9\x7f") == "caf\\xe9\\x7f");
}

}  // namespace
