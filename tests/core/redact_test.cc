#include <catch2/catch.hpp>

#include "tputrain/core/redact.h"

namespace {

using tputrain::core::Redact;

TEST_CASE("Redact replaces every kind of credential", "[redact]") {
  CHECK(Redact("Authorization: Bearer ya29.abc\r\nAccept: */*") == "Authorization: REDACTED\r\nAccept: */*");
  CHECK(Redact("authorization: Basic dXNlcjpwYXNz") == "authorization: REDACTED");
  CHECK(Redact("curl -H 'x: Bearer abc.def-ghi'") == "curl -H 'x: Bearer REDACTED'");
  CHECK(Redact("token ya29.a0AfH6SM-x_y.z end") == "token ya29.REDACTED end");
  CHECK(Redact(R"({"access_token": "a\"b", "expires_in": 3599})") ==
        R"({"access_token": "REDACTED", "expires_in": 3599})");
  CHECK(Redact(R"({"refresh_token":"1//x","id_token":"e.y.z","client_secret":"s"})") ==
        R"({"refresh_token":"REDACTED","id_token":"REDACTED","client_secret":"REDACTED"})");
  CHECK(
      Redact(
          R"({"private_key_id": "abc", "private_key": "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n"})") ==
      R"({"private_key_id": "REDACTED", "private_key": "REDACTED"})");
  CHECK(Redact("grant_type=x&assertion=eyJ.a.b&client_secret=s&refresh_token=r") ==
        "grant_type=x&assertion=REDACTED&client_secret=REDACTED&refresh_token=REDACTED");
  CHECK(Redact("key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAA=\n-----END RSA PRIVATE KEY-----\ndone") ==
        "key:\nREDACTED\ndone");
}

TEST_CASE("Redact leaves ordinary text and certificates alone", "[redact]") {
  std::string body = R"({"name":"projects/p/locations/z/nodes/n","acceleratorType":"v5litepod-8","labels":{"a":"b"}})";
  CHECK(Redact(body) == body);
  std::string cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  CHECK(Redact(cert) == cert);
  CHECK(Redact("the bearer of bad news") == "the bearer of bad news");
  CHECK(Redact("passassertion=x") == "passassertion=x");
  CHECK(Redact(Redact("Bearer abc")) == "Bearer REDACTED");
}

TEST_CASE("Redact survives a large body", "[redact]") {
  std::string big = R"({"private_key": ")" + std::string(200'000, 'A') + R"("})";
  CHECK(Redact(big) == R"({"private_key": "REDACTED"})");
}

}  // namespace
