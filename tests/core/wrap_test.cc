// Prose fitted to a terminal: lines broken at spaces, continuations under their text column,
// example commands continued as a shell continues them, and nothing touched when it fits or when
// there is no terminal (width 0).
#include <catch2/catch.hpp>

#include "tputrain/core/wrap.h"

using tputrain::core::DisplayColumns;
using tputrain::core::WrapToWidth;

TEST_CASE("a line that fits, or output with no terminal, stays as it is") {
  CHECK(WrapToWidth("short line\nanother\n", 20) == "short line\nanother\n");
  const std::string long_line(300, 'x');
  CHECK(WrapToWidth(long_line + " and more", 0) == long_line + " and more");
}

TEST_CASE("prose breaks at spaces into lines that fit") {
  CHECK(WrapToWidth("the cluster is busy with another operation", 20) ==
        "the cluster is busy\nwith another\noperation");
  CHECK(WrapToWidth("  indented prose that is long enough to wrap", 20) ==
        "  indented prose\n  that is long\n  enough to wrap");
}

TEST_CASE("a label's continuation lines start under its text") {
  CHECK(WrapToWidth("why: 8 B parameters x 16 bytes = 128 GB", 24) == "why: 8 B parameters x 16\n     bytes = 128 GB");
  CHECK(WrapToWidth("WARNING: the price table is 3 days old", 24) ==
        "WARNING: the price table\n         is 3 days old");
}

TEST_CASE("a --help flag's description wraps under its own column") {
  const std::string line = "  --tpu-type TEXT   TPU slice the Ray cluster runs on, e.g. v6e-16";
  CHECK(WrapToWidth(line, 45) ==
        "  --tpu-type TEXT   TPU slice the Ray cluster\n"
        "                    runs on, e.g. v6e-16");
}

TEST_CASE("an example command breaks with a backslash, so that it still runs when pasted") {
  CHECK(WrapToWidth("  tputrain cluster create ray-tpu --location us-east5-b --tpu-type v6e-16", 40) ==
        "  tputrain cluster create ray-tpu \\\n"
        "      --location us-east5-b --tpu-type \\\n"
        "      v6e-16");
}

TEST_CASE("a word longer than a line is cut between characters, never inside one") {
  const std::string wrapped = WrapToWidth("see https://console.cloud.google.com/ñññññññññññ", 16);
  for (std::size_t start = 0; start < wrapped.size();) {
    const auto end = std::min(wrapped.find('\n', start), wrapped.size());
    CHECK(DisplayColumns(wrapped.substr(start, end - start)) <= 16);
    start = end + 1;
  }
  CHECK(wrapped.find("\xc3\n") == std::string::npos);  // no character split by a break
}

TEST_CASE("a line drawn with a carriage return or an escape sequence is left to whoever drew it") {
  const std::string live = "nodepool tpu-0: creating\r\x1b[Knodepool tpu-0: creating 12s and more words";
  CHECK(WrapToWidth(live, 20) == live);
}
