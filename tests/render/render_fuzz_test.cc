// The renderer on random and mutated input, under AddressSanitizer and UBSan: it must return
// (an error or a rendering) for everything, never crash. Seeded; TPUTRAIN_FUZZ_ITERATIONS
// scales the run.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>

#include "render/fuzz_render.h"

namespace {

int Iterations(int fallback) {
  const char* text = std::getenv("TPUTRAIN_FUZZ_ITERATIONS");
  return text && *text ? std::atoi(text) : fallback;
}

std::vector<std::string> BuiltinTemplateTexts() {
  std::vector<std::string> texts;
  for (const auto& dir : std::filesystem::directory_iterator(std::string(TPUTRAIN_SOURCE_DIR) + "/templates")) {
    for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
      std::ifstream in(file.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      texts.push_back(text.str());
    }
  }
  return texts;
}

const std::vector<std::string> kPieces = {"$",
                                          "${",
                                          "}",
                                          "${A}",
                                          "$A",
                                          "${N}",
                                          "${B}",
                                          "${A:-",
                                          "${A:?",
                                          ":-",
                                          "\"",
                                          "'",
                                          "\n",
                                          "\n  ",
                                          "- ",
                                          ": ",
                                          "#",
                                          "[",
                                          "]",
                                          "{",
                                          "}",
                                          "&a",
                                          "*a",
                                          "!!str ",
                                          "|",
                                          ">",
                                          "---\n",
                                          "...",
                                          "\\",
                                          "\t",
                                          std::string(1, '\0'),
                                          "\xff",
                                          "\xc3\xa9",
                                          "apiVersion: v1\n",
                                          "kind: X\n",
                                          "metadata:\n  name: n\n",
                                          "4",
                                          "on",
                                          "0755",
                                          "~"};

const std::vector<std::string> kValues = {"",    "4",      "true", "on",   "0755", "x\"y", "a\nb: c",
                                          "[1]", "{a: b}", "# c",  "- x",  "x: y", "${A}", "$(X)",
                                          "\\",  "'",      "*a",   "&a b", "---",  "\xff"};

}  // namespace

TEST_CASE("random byte strings never crash the renderer") {
  std::mt19937 random(1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 200);
  const int n = Iterations(20000);
  for (int i = 0; i < n; ++i) {
    std::string input;
    for (int k = length(random); k > 0; --k) input += static_cast<char>(byte(random));
    tputrain::render::fuzz::RenderOnce(input);
  }
  SUCCEED(n << " inputs");
}

TEST_CASE("grammar-shaped inputs with hostile values never crash the renderer") {
  std::mt19937 random(2);
  std::uniform_int_distribution<std::size_t> piece(0, kPieces.size() - 1);
  std::uniform_int_distribution<std::size_t> value(0, kValues.size() - 1);
  std::uniform_int_distribution<int> length(0, 60);
  const int n = Iterations(20000);
  for (int i = 0; i < n; ++i) {
    std::string input =
        "A=" + kValues[value(random)] + "\nN=" + kValues[value(random)] + "\nB=" + kValues[value(random)] + "\x01";
    for (int k = length(random); k > 0; --k) input += kPieces[piece(random)];
    tputrain::render::fuzz::RenderOnce(input);
  }
  SUCCEED(n << " inputs");
}

TEST_CASE("mutated built-in templates never crash the renderer") {
  const auto texts = BuiltinTemplateTexts();
  REQUIRE(texts.size() > 10);
  std::mt19937 random(3);
  std::uniform_int_distribution<std::size_t> piece(0, kPieces.size() - 1);
  std::uniform_int_distribution<std::size_t> value(0, kValues.size() - 1);
  std::uniform_int_distribution<int> edits(1, 8);
  const int n = Iterations(3000);
  for (int i = 0; i < n; ++i) {
    std::string text = texts[static_cast<std::size_t>(i) % texts.size()];
    for (int k = edits(random); k > 0; --k) {
      std::uniform_int_distribution<std::size_t> at(0, text.size());
      const std::size_t pos = at(random);
      if (random() % 3 == 0 && pos < text.size()) {
        text.erase(pos, std::min<std::size_t>(text.size() - pos, random() % 16));
      } else {
        text.insert(pos, kPieces[piece(random)]);
      }
    }
    // Every name the built-ins use gets a (possibly hostile) value, so the YAML checks run.
    std::string input;
    for (const char* name : {"KSA_NAME", "DOCKER_IMAGE", "GS_BUCKET", "BUCKET", "NUM_SLICES", "NUM_HOSTS",
                             "TPU_CHIPS_PER_HOST", "GKE_ACCELERATOR", "TPU_TOPOLOGY", "LWS_SIZE", "A", "N"}) {
      input += std::string(name) + "=" + (random() % 2 ? std::string("ok") : kValues[value(random)]) + "\n";
    }
    tputrain::render::fuzz::RenderOnce(input + "\x01" + text);
  }
  SUCCEED(n << " inputs");
}
