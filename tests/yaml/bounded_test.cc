// The bounded YAML path: ordinary documents load; alias bombs, deep nesting and oversized texts
// are one usage line each, found in a bounded walk.
#include <chrono>
#include <string>

#include <catch2/catch.hpp>

#include "tputrain/yaml/bounded.h"

namespace tputrain::yaml {
namespace {

// "Billion laughs": level i is a list of ten references to level i-1; nine levels expand to
// 10^9 strings from a text of under a kilobyte.
std::string AliasBomb(int levels) {
  std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= levels; ++i) {
    std::string previous = "*a" + std::to_string(i - 1);
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", " : "") + previous;
    text += "]\n";
  }
  return text;
}

TEST_CASE("ordinary documents load, each of a text", "[unit]") {
  auto documents = LoadAll("a: 1\n---\nb: [x, y]\n", "in.yaml");
  REQUIRE(documents);
  REQUIRE(documents->size() == 2);
  CHECK((*documents)[1]["b"][1].as<std::string>() == "y");
  auto one = Load("", "empty.yaml");
  REQUIRE(one);
  CHECK(one->IsNull());
  // Aliases within the budget are fine: they are YAML, and manifests use them.
  auto aliased = Load("base: &b {cpu: 1}\nhead: *b\nworker: *b\n", "aliases.yaml");
  REQUIRE(aliased);
  CHECK((*aliased)["worker"]["cpu"].as<int>() == 1);
}

TEST_CASE("an alias bomb is refused in one line, quickly", "[unit]") {
  const std::string bomb = AliasBomb(9);
  REQUIRE(bomb.size() < 1024);
  const auto started = std::chrono::steady_clock::now();
  auto loaded = Load(bomb, "-f");
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK(loaded.error().message == "-f: more than 1000000 YAML nodes once its aliases are expanded (an alias bomb?)");
  // Not a timed assertion on a shared machine: the walk stops at the limit, so it is bounded by
  // a million node visits; this only reports what it took.
  INFO("took " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  CHECK(LoadAll(bomb, "-f").error().message == loaded.error().message);
}

TEST_CASE("deep nesting, an oversized text and malformed YAML are one line naming the source", "[unit]") {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  auto nested = Load(deep, "values.yaml");
  REQUIRE_FALSE(nested);
  CHECK(nested.error().message.rfind("values.yaml: ", 0) == 0);
  CHECK(nested.error().message.find('\n') == std::string::npos);

  Limits small;
  small.max_bytes = 8;
  auto large = Load("key: a longer value\n", "tputrain.yaml", small);
  REQUIRE_FALSE(large);
  CHECK(large.error().message == "tputrain.yaml: larger than 8 bytes");

  auto malformed = Load("a: [x\n", "in.yaml");
  REQUIRE_FALSE(malformed);
  CHECK(malformed.error().message.rfind("in.yaml: not valid YAML at line ", 0) == 0);
}

TEST_CASE("a ',' outside a flow collection is one line, not documents without end", "[unit]") {
  // yaml-cpp 0.7's LoadAll yields empty documents for ever on these, and ran out of memory.
  for (const std::string text : {",", "- a\n,", "\"x\",", "{a: 1},", "--- ,", " ,"}) {
    INFO(text);
    auto loaded = LoadAll(text, "kubeconfig");
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error().message ==
          "kubeconfig: not valid YAML: a document that never ends (a ',' outside [ ] or { }?)");
  }
  auto documents = LoadAll("a: 1\n---\n---\nb: [1, 2]\n---\n", "-f");
  REQUIRE(documents);
  CHECK(documents->size() == 4);  // the empty ones too, as yaml-cpp counts them
}

TEST_CASE("the node budget is shared by the documents of one text", "[unit]") {
  Limits limits;
  limits.max_nodes = 10;
  CHECK(LoadAll("[a, b, c]\n---\n[d, e]\n", "two.yaml", limits));
  CHECK_FALSE(LoadAll("[a, b, c, d, e]\n---\n[f, g, h, i, j]\n", "two.yaml", limits));
}

}  // namespace
}  // namespace tputrain::yaml
