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

// "Trojan Source": an override or an isolate reorders what follows it on the screen.
TEST_CASE("PrintableText shows bidirectional controls instead of obeying them", "[text]") {
  CHECK(PrintableText("ok \xe2\x80\xae"
                      "txt.exe") == "ok \\u202etxt.exe");
  CHECK(PrintableText("\xe2\x81\xa6x\xe2\x81\xa9 \xe2\x80\x8f \xd8\x9c", Newlines::kKeep) ==
        "\\u2066x\\u2069 \\u200f \\u061c");
  // Neighbours that are not controls print as they are: an en dash, an ellipsis, Arabic letters.
  const std::string neighbours =
      "a\xe2\x80\x93"
      "z\xe2\x80\xa6 \xd8\xb3\xd9\x84";
  CHECK(PrintableText(neighbours) == neighbours);
}

}  // namespace

TEST_CASE("Counted: a count with its noun in the right number") {
  using tputrain::core::Counted;
  CHECK(Counted(1, "host") == "1 host");
  CHECK(Counted(4, "host") == "4 hosts");
  CHECK(Counted(0, "node") == "0 nodes");
  CHECK(Counted(2, "policy", "policies") == "2 policies");
}
