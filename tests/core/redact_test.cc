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

namespace {

using tputrain::core::Redactor;

TEST_CASE("A Redactor replaces the secrets it holds wherever a server echoes them", "[redact]") {
  Redactor redactor;
  const std::string refresh = "1//0gRefreshTokenValue-xyz";
  const std::string key = "-----BEGIN PRIVATE KEY-----\nMIIEv\nQ/A=\n-----END PRIVATE KEY-----\n";
  const std::string jwt = "eyJhbGciOi.eyJpc3Mi.c2lnbmF0/dXJl";
  redactor.Hold(refresh);
  redactor.Hold(key);
  redactor.Hold(jwt);

  // No pattern finds these: the value is in prose, form-encoded, or JSON-escaped.
  CHECK(redactor("invalid_grant: Bad refresh token 1//0gRefreshTokenValue-xyz.") ==
        "invalid_grant: Bad refresh token REDACTED.");
  CHECK(redactor("echo: 1%2F%2F0gRefreshTokenValue-xyz") == "echo: REDACTED");
  CHECK(redactor(R"({"detail":"key was -----BEGIN PRIVATE KEY-----\nMIIEv\nQ\/A=\n-----END PRIVATE KEY-----\n"})") ==
        R"({"detail":"key was REDACTED"})");
  CHECK(redactor("the assertion eyJhbGciOi.eyJpc3Mi.c2lnbmF0/dXJl was refused") ==
        "the assertion REDACTED was refused");
  CHECK(redactor(R"({"jwt":"eyJhbGciOi.eyJpc3Mi.c2lnbmF0\/dXJl"})") == R"({"jwt":"REDACTED"})");
  // And the patterns still apply.
  CHECK(redactor("Authorization: Bearer other") == "Authorization: REDACTED");
}

TEST_CASE("A Redactor ignores values too short to be a credential", "[redact]") {
  Redactor redactor;
  redactor.Hold("abc");
  redactor.Hold("");
  CHECK(redactor("abc abc") == "abc abc");
}

}  // namespace
