#pragma once

// Random JSON and YAML texts of the kinds that once crashed or bloated tputrain: nesting far past
// any parser's bound, texts near and past the size bounds, bytes that are not UTF-8, escapes of
// lone surrogates, alias bombs, and valid samples damaged by any of these. Deterministic for a
// seed, so that a failing run repeats (TPUTRAIN_FUZZ_SEED); the seed is chosen at random and
// printed otherwise.
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace tputrain::testing {

// TPUTRAIN_FUZZ_SEED, else a fresh one.
inline uint64_t FuzzSeed() {
  if (const char* text = std::getenv("TPUTRAIN_FUZZ_SEED"); text != nullptr && *text != '\0') {
    return std::strtoull(text, nullptr, 10);
  }
  return (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
}

// TPUTRAIN_FUZZ_ITERATIONS, else `fallback`.
inline int FuzzIterations(int fallback) {
  const char* text = std::getenv("TPUTRAIN_FUZZ_ITERATIONS");
  return text != nullptr && *text != '\0' ? std::atoi(text) : fallback;
}

class HostileText {
 public:
  explicit HostileText(uint64_t seed) : random_(seed) {}

  size_t Below(size_t bound) { return bound == 0 ? 0 : std::uniform_int_distribution<size_t>(0, bound - 1)(random_); }
  bool OneIn(size_t n) { return Below(n) == 0; }
  // Depths spread over orders of magnitude: 1..10, ..., 10^5..10^6 (but at most `most`).
  size_t Depth(size_t most) {
    size_t ceiling = 10;
    for (size_t order = Below(6); order > 0; --order) ceiling *= 10;
    return std::min(most, 1 + Below(ceiling));
  }
  template <class T>
  const T& Pick(const std::vector<T>& items) {
    return items[Below(items.size())];
  }

  // A JSON text: a sample as it is or damaged, or something of its own.
  std::string Json(const std::string& sample, size_t max_bytes) {
    switch (Below(8)) {
      case 0:
        return Nested(Depth(200'000), OneIn(4));
      case 1:
        return Damaged(sample);
      case 2:
        return WithValue(sample, Nested(Depth(200'000), OneIn(8)));
      case 3:
        return WithValue(sample, Large(max_bytes));
      case 4:
        return WithValue(sample, Scalar());
      case 5:
        return Bytes(Below(512));
      case 6:
        return Damaged(WithValue(sample, Nested(Depth(300), false)));
      default:
        return sample;
    }
  }

  // A YAML text: the same, with anchors and aliases and indentation of its own.
  std::string Yaml(const std::string& sample, size_t max_bytes) {
    switch (Below(8)) {
      case 0:
        return Nested(Depth(200'000), OneIn(4));  // flow collections are YAML too
      case 1:
        return Laughs(2 + Below(12), 2 + Below(12));
      case 2:
        return Indented(Depth(3000));
      case 3:
        return "deep: " + Nested(Depth(200'000), false) + "\n" + sample;
      case 4:
        return Damaged(sample);
      case 5:
        return "big: \"" + std::string(std::min<size_t>(Below(max_bytes + 1024), max_bytes + 1024), 'y') + "\"\n" +
               sample;
      case 6:
        return Bytes(Below(512)) + "\n" + sample;
      default:
        return sample;
    }
  }

  // `depth` arrays and objects, closed or not, with strings and escapes on the way down.
  std::string Nested(size_t depth, bool unclosed) {
    std::string text;
    std::string closing;
    text.reserve(depth * 6);
    for (size_t i = 0; i < depth; ++i) {
      if (OneIn(2)) {
        text += '[';
        closing += ']';
      } else {
        text += OneIn(16) ? "{\"[{\\\"\": " : "{\"a\": ";
        closing += '}';
      }
    }
    text += Scalar();
    if (!unclosed) text.append(closing.rbegin(), closing.rend());
    return text;
  }

 private:
  // `value` as a field of the sample object (or the sample replaced, when it is no object).
  std::string WithValue(const std::string& sample, const std::string& value) {
    if (sample.size() < 2 || sample.front() != '{') return value;
    const std::string field = Pick<std::string>({"\"x\"", "\"name\"", "\"labels\"", "\"metadata\"", "\"\xff\""});
    return "{" + field + ": " + value + (sample.size() > 2 ? ", " : "") + sample.substr(1);
  }

  std::string Scalar() {
    switch (Below(10)) {
      case 0:
        return "\"\\ud800\"";  // a lone surrogate
      case 1:
        return "\"\xff\xfe\xc3\"";  // not UTF-8
      case 2:
        return "1e999999";
      case 3:
        return "-" + std::string(1 + Below(5000), '9');
      case 4:
        return "\"" + std::string(Below(100'000), 'z') + "\"";
      case 5:
        return "\"\\u0000\x1b[2J\"";
      case 6:
        return "null";
      case 7:
        return "\"";  // unterminated
      default:
        return "\"v\"";
    }
  }

  // Near and past `max_bytes`: an array of numbers, or one string.
  std::string Large(size_t max_bytes) {
    const size_t size = max_bytes - max_bytes / 8 + Below(max_bytes / 4);
    if (OneIn(2)) return "\"" + std::string(size, 'x') + "\"";
    std::string text = "[";
    text.reserve(size + 8);
    while (text.size() < size) text += "0,";
    text += "0]";
    return text;
  }

  std::string Bytes(size_t size) {
    std::string text(size, '\0');
    for (auto& c : text) c = static_cast<char>(Below(256));
    return text;
  }

  // A few edits: bytes flipped, a cut, a piece repeated, a nesting dropped in.
  std::string Damaged(std::string text) {
    for (size_t edits = 1 + Below(4); edits > 0 && !text.empty(); --edits) {
      const size_t at = Below(text.size());
      switch (Below(5)) {
        case 0:
          text[at] = static_cast<char>(Below(256));
          break;
        case 1:
          text.resize(at);
          break;
        case 2:
          text.insert(at, text.substr(at, Below(64)));
          break;
        case 3:
          text.insert(at, Nested(Depth(100'000), OneIn(2)));
          break;
        default:
          text.insert(at, Pick<std::string>({"\xc3", "\xed\xa0\x80", "\\", "\"", "&a", "*a", "\n  - ", ": "}));
      }
    }
    return text;
  }

  // A billion laughs: `levels` aliases deep, each `width` times the last.
  std::string Laughs(size_t levels, size_t width) {
    std::string text = "a0: &a0 [lol]\n";
    for (size_t i = 1; i < levels; ++i) {
      const std::string previous = "*a" + std::to_string(i - 1);
      text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + previous;
      for (size_t j = 1; j < width; ++j) text += ", " + previous;
      text += "]\n";
    }
    return text;
  }

  // Block mappings nested `depth` deep by indentation.
  std::string Indented(size_t depth) {
    std::string text;
    for (size_t i = 0; i < depth; ++i) text += std::string(i, ' ') + "k:\n";
    return text + std::string(depth, ' ') + "v\n";
  }

  std::mt19937_64 random_;
};

}  // namespace tputrain::testing
