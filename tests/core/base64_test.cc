#include <catch2/catch.hpp>

#include <string>

#include "tputrain/core/base64.h"

using tputrain::core::Base64Alphabet;
using tputrain::core::Base64Padding;
using tputrain::core::DecodeBase64;
using tputrain::core::EncodeBase64;

namespace {

std::string Decoded(const std::string& text, Base64Alphabet alphabet = Base64Alphabet::kStandard) {
  auto bytes = DecodeBase64(text, alphabet);
  REQUIRE(bytes);
  return *bytes;
}

std::string Refusal(const std::string& text, Base64Alphabet alphabet = Base64Alphabet::kStandard) {
  auto bytes = DecodeBase64(text, alphabet);
  REQUIRE_FALSE(bytes);
  CHECK(bytes.error().kind == tputrain::core::ErrorKind::kInvalidArgument);
  return bytes.error().message;
}

}  // namespace

TEST_CASE("base64: the RFC 4648 section 10 test vectors, both ways", "[unit]") {
  const std::pair<std::string, std::string> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [bytes, text] : vectors) {
    INFO(bytes);
    CHECK(EncodeBase64(bytes) == text);
    CHECK(Decoded(text) == bytes);
  }
  CHECK(EncodeBase64("foob", Base64Alphabet::kStandard, Base64Padding::kUnpadded) == "Zm9vYg");
  CHECK(EncodeBase64("fooba", Base64Alphabet::kStandard, Base64Padding::kUnpadded) == "Zm9vYmE");
}

TEST_CASE("base64: the two alphabets differ in 62 and 63 only", "[unit]") {
  const std::string high("\xfb\xff\xbf", 3);  // six-bit groups 62, 63, 62, 63
  CHECK(EncodeBase64(high) == "+/+/");
  CHECK(EncodeBase64(high, Base64Alphabet::kUrlSafe) == "-_-_");
  CHECK(Decoded("-_-_", Base64Alphabet::kUrlSafe) == high);
  CHECK(Decoded("+/+/") == high);
  // A JWT header, as RFC 7515 appendix A.1 encodes it: url-safe, unpadded.
  CHECK(EncodeBase64("{\"typ\":\"JWT\",\r\n \"alg\":\"HS256\"}", Base64Alphabet::kUrlSafe, Base64Padding::kUnpadded) ==
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9");
  const std::string all_bytes = [] {
    std::string bytes;
    for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
    return bytes;
  }();
  CHECK(Decoded(EncodeBase64(all_bytes, Base64Alphabet::kUrlSafe), Base64Alphabet::kUrlSafe) == all_bytes);
}

TEST_CASE("base64 decoding: padding optional, folded lines skipped", "[unit]") {
  CHECK(Decoded("Zg") == "f");
  CHECK(Decoded("Zm8") == "fo");
  CHECK(Decoded("Zm9v\nYmFy\r\n") == "foobar");
  CHECK(Decoded("Zm9v YmE=") == "fooba");
}

TEST_CASE("base64 decoding refuses what no encoder writes, in one line", "[unit]") {
  CHECK(Refusal("Zm9v*mFy") == "not valid base64: unexpected character '*'");
  CHECK(Refusal("-_-_").find("unexpected character '-'") != std::string::npos);  // url-safe text, standard alphabet
  CHECK(Refusal("+/+/", Base64Alphabet::kUrlSafe).find("unexpected character '+'") != std::string::npos);
  CHECK(Refusal("Zg==Zg==") == "not valid base64: '=' before the end");
  CHECK(Refusal("Zg===") == "not valid base64: more than two '='");
  CHECK(Refusal("Zm9vY") == "not valid base64: truncated");
  CHECK(Refusal("Zm8==") == "not valid base64: wrong padding");
}
