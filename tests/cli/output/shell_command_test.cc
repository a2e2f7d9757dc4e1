// A command printed for the user fits the terminal and, pasted into a shell, runs as printed.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "output/output.h"

namespace tputrain::cli {
namespace {

const std::string kCommand =
    "tputrain cleanup --scan --delete-leaked --yes --project ml-platform-training-prod "
    "--state-dir '/tmp/a dir/with '\\''quotes'\\'' in it/state' --location us-central1";

// What bash makes of `text`: its words, one per line (printf runs as bash's builtin).
std::string WordsAsBashSplits(const std::string& text) {
  const std::string script = "set -- " + text + "\nprintf '%s\\n' \"$@\"";
  std::string quoted = "'";
  for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  FILE* pipe = popen(("bash -c " + quoted).c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
  REQUIRE(pclose(pipe) == 0);
  return out;
}

TEST_CASE("FitCommand leaves a command whole without a width or when it fits", "[unit]") {
  CHECK(FitCommand(kCommand, 18, 0) == kCommand);
  CHECK(FitCommand("tputrain cleanup --scan", 18, 80) == "tputrain cleanup --scan");
}

TEST_CASE("FitCommand breaks between shell words, every line within the width", "[unit]") {
  const std::string fitted = FitCommand(kCommand, 18, 60);
  CHECK(fitted != kCommand);
  std::size_t start = 0;
  std::size_t used = 18;
  while (start <= fitted.size()) {
    const auto end = std::min(fitted.find('\n', start), fitted.size());
    INFO(fitted.substr(start, end - start));
    CHECK(used + (end - start) <= 60);
    start = end + 1;
    used = 0;
  }
  CHECK(fitted.find("'/tmp/a dir/with '\\''quotes'\\'' in it/state'") != std::string::npos);
  CHECK(WordsAsBashSplits(fitted) == WordsAsBashSplits(kCommand));
}

TEST_CASE("FitCommand keeps a word longer than a line whole", "[unit]") {
  const std::string long_word(100, 'x');
  const std::string fitted = FitCommand("tputrain --run " + long_word, 0, 40);
  CHECK(fitted.find(long_word) != std::string::npos);
  CHECK(WordsAsBashSplits(fitted) == WordsAsBashSplits("tputrain --run " + long_word));
}

}  // namespace
}  // namespace tputrain::cli
