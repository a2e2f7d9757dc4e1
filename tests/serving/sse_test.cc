#include <catch2/catch.hpp>

#include "sse.h"

namespace tputrain::serving {
namespace {

using Events = std::vector<std::string>;

TEST_CASE("Server-sent events come out as each one's blank line arrives, in chunks of any size") {
  ServerSentEvents events;
  CHECK(*events.Feed("data: {\"a\"") == Events{});
  CHECK(*events.Feed(":1}\n") == Events{});
  CHECK(*events.Feed("\ndata: [DO") == Events{"{\"a\":1}"});
  CHECK(*events.Feed("NE]\n\n") == Events{"[DONE]"});
  CHECK(*events.Finish() == Events{});

  // One byte at a time, \r\n line ends split between chunks, comments and other fields skipped,
  // a value with no space after the colon, and an event of two data lines.
  const std::string text = ": keep-alive\r\nevent: x\r\nid: 3\r\ndata:one\r\n\r\ndata: two\r\ndata: lines\r\n\r\n";
  ServerSentEvents bytewise;
  Events seen;
  for (char c : text) {
    auto out = bytewise.Feed(std::string_view(&c, 1));
    REQUIRE(out);
    seen.insert(seen.end(), out->begin(), out->end());
  }
  CHECK(seen == Events{"one", "two\nlines"});

  // A last event the server ended without its blank line; a field with no data is no event.
  ServerSentEvents unended;
  CHECK(*unended.Feed("retry: 10\n\ndata: last") == Events{});
  CHECK(*unended.Finish() == Events{"last"});
}

TEST_CASE("A server-sent line that never ends is refused at 1 MiB, not held") {
  ServerSentEvents events;
  const std::string block(64 * 1024, 'x');
  bool failed = false;
  for (int i = 0; i < 17 && !failed; ++i) failed = !events.Feed(i == 0 ? "data: " + block : block);
  CHECK(failed);

  ServerSentEvents many_lines;
  bool refused = false;
  for (int i = 0; i < 40 && !refused; ++i) refused = !many_lines.Feed("data: " + block + "\n");
  CHECK(refused);
}

}  // namespace
}  // namespace tputrain::serving
