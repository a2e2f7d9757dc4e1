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

TEST_CASE("A Redactor holds a secret read with a newline without it too", "[redact]") {
  Redactor redactor;
  redactor.Hold("file-held-token-42\n");
  CHECK(redactor("401: token file-held-token-42 expired") == "401: token REDACTED expired");
  redactor.Hold("  \n");
  CHECK(redactor("a  \nb") == "a  \nb");
}

TEST_CASE("A Redactor ignores values too short to be a credential", "[redact]") {
  Redactor redactor;
  redactor.Hold("abc");
  redactor.Hold("");
  CHECK(redactor("abc abc") == "abc abc");
}

}  // namespace

namespace {

using tputrain::core::Redactor;
using tputrain::core::SecretFieldValues;

// A TPU node as nodes.get answers it, with tpu-vm create --ray's token in its metadata map.
const std::string kNode =
    R"({"name":"projects/p/locations/z/nodes/rv","metadata":{"startup-script":"md attributes/tputrain-ray-token",)"
    R"("tputrain-ray-token":"4f1c9e0a7b3d4c2e9f8a6b5c4d3e2f1a","tputrain-ray-version":"2.60.0"}})";

TEST_CASE("A Redactor redacts the fields it is told hold secrets, by name, in maps and key/value items", "[redact]") {
  Redactor redactor;
  redactor.HoldField("tputrain-ray-token");
  const std::string shown = redactor(kNode);
  CHECK(shown.find("4f1c9e0a") == std::string::npos);
  CHECK(shown.find(R"("tputrain-ray-token":"REDACTED")") != std::string::npos);
  // The rest is printed exactly: the startup script names the key, which is no secret.
  CHECK(shown.find(R"("startup-script":"md attributes/tputrain-ray-token")") != std::string::npos);
  CHECK(shown.find(R"("tputrain-ray-version":"2.60.0")") != std::string::npos);

  // Compute's metadata items, pretty-printed, the value before or after its key.
  CHECK(
      redactor("{\n  \"items\": [\n    {\n      \"key\": \"tputrain-ray-token\",\n      \"value\": \"abcdefgh12345\"\n"
               "    },\n    {\"value\": \"zyxwvut98765\", \"key\": \"tputrain-ray-token\"},\n"
               "    {\"key\": \"enable-oslogin\", \"value\": \"TRUE\"}\n  ]\n}") ==
      "{\n  \"items\": [\n    {\n      \"key\": \"tputrain-ray-token\",\n      \"value\": \"REDACTED\"\n"
      "    },\n    {\"value\": \"REDACTED\", \"key\": \"tputrain-ray-token\"},\n"
      "    {\"key\": \"enable-oslogin\", \"value\": \"TRUE\"}\n  ]\n}");
  // The usual token fields need no telling, in either shape.
  CHECK(Redactor()(R"({"status":{"token":"k8s-exec-token-123456"}})") == R"({"status":{"token":"REDACTED"}})");
  CHECK(Redactor()(R"([{"key":"password","value":"hunter2hunter2"}])") == R"([{"key":"password","value":"REDACTED"}])");
  // Without being told, the Ray token's field is an ordinary one.
  CHECK(Redactor()(kNode) == kNode);
}

TEST_CASE("A Redactor holds the secrets a body carries by name, then redacts them anywhere", "[redact]") {
  Redactor redactor;
  redactor.HoldField("tputrain-ray-token");
  redactor.HoldSecretsIn(kNode);
  // Later, the value with no name beside it: an error, a command line, a log line.
  CHECK(redactor("ray: 401 for token 4f1c9e0a7b3d4c2e9f8a6b5c4d3e2f1a at 10.0.0.2") ==
        "ray: 401 for token REDACTED at 10.0.0.2");
  CHECK(redactor("ssh w0 env RAY_AUTH_TOKEN=4f1c9e0a7b3d4c2e9f8a6b5c4d3e2f1a ray status") ==
        "ssh w0 env RAY_AUTH_TOKEN=REDACTED ray status");
}

TEST_CASE("SecretFieldValues decodes values and survives any text", "[redact]") {
  CHECK(SecretFieldValues(R"({"access_token":"a\/b\"c\u0041d","x":{"token":"t"}})") ==
        std::vector<std::string>{"a/b\"cAd", "t"});
  CHECK(SecretFieldValues(R"(prose "token": "x" {"key":"token"} [{"value":"v","key":"token"}])") ==
        std::vector<std::string>{"v"});
  // Cut short, unbalanced, binary, or nested past any sensible depth: no crash, what is whole is found.
  CHECK(SecretFieldValues(R"({"token":"abc)") == std::vector<std::string>{"abc"});  // a body cut short
  CHECK(SecretFieldValues("}}]]{\"token\":\"ok\"}").size() == 1);
  std::string deep = std::string(100'000, '[') + R"({"token":"deep"})" + std::string(100'000, ']');
  CHECK(SecretFieldValues(deep).empty());
  std::string shallow_after_deep = deep + R"({"token":"after"})";
  CHECK(SecretFieldValues(shallow_after_deep) == std::vector<std::string>{"after"});
  std::string binary(4096, '\0');
  for (size_t i = 0; i < binary.size(); ++i) binary[i] = static_cast<char>(i * 131 % 256);
  CHECK_NOTHROW(SecretFieldValues(binary));
}

}  // namespace

namespace {

using tputrain::core::Redact;
using tputrain::core::Redactor;

TEST_CASE("Redact replaces Hugging Face tokens by their shape, wherever they appear", "[redact]") {
  const std::string token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
  CHECK(Redact("HF_TOKEN=" + token) == "HF_TOKEN=REDACTED");
  CHECK(Redact("login with " + token + ".") == "login with REDACTED.");
  CHECK(Redact(R"({"message":"bad token )" + token + R"("})") == R"({"message":"bad token REDACTED"})");
  CHECK(Redact(token + "\n" + token) == "REDACTED\nREDACTED");
  // 30 letters and digits after hf_ is the shortest a token is taken to be; fewer, or part of a
  // longer word, is ordinary text.
  CHECK(Redact("hf_" + std::string(30, 'a')) == "REDACTED");
  const std::string short_one = "hf_" + std::string(29, 'a');
  CHECK(Redact(short_one) == short_one);
  const std::string inside = "model_hf_" + std::string(40, 'a');
  CHECK(Redact(inside) == inside);
  CHECK(Redact("the hf_transfer package") == "the hf_transfer package");
}

// A Secret as the API server answers a GET, and as a list.
const std::string kSecret =
    R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"hf-token"},"type":"Opaque",)"
    R"("data":{"hf":"bXktdmVyeS1vd24tdmFsdWUtMTIzNDU2Cg==","x":"c2hvcnQ="},"stringData":{"pw":"plain-text-secret-99"}})";

TEST_CASE("A Redactor holds every value of a Secret it reads, encoded and decoded", "[redact]") {
  Redactor redactor;
  redactor.HoldSecretsIn(kSecret);
  // base64 of "my-very-own-value-123456\n": the decoded value, with and without its newline.
  CHECK(redactor("admission webhook denied: value my-very-own-value-123456 is weak") ==
        "admission webhook denied: value REDACTED is weak");
  CHECK(redactor("echo bXktdmVyeS1vd24tdmFsdWUtMTIzNDU2Cg== | base64 -d") == "echo REDACTED | base64 -d");
  CHECK(redactor("pw=plain-text-secret-99") == "pw=REDACTED");
  CHECK(redactor("short") == "short");  // too short to hold ("c2hvcnQ=" decodes to 5 bytes)

  // In a list (whose items carry no kind), in a watch event, and with the Secret's fields in any order.
  Redactor listed;
  listed.HoldSecretsIn(
      R"({"kind":"SecretList","apiVersion":"v1","items":[{"metadata":{"name":"a"},"data":{"k":"bGlzdGVkLXNlY3JldC12YWx1ZQ=="}}]})");
  CHECK(listed("listed-secret-value") == "REDACTED");
  Redactor watched;
  watched.HoldSecretsIn(
      R"({"type":"ADDED","object":{"data":{"k":"d2F0Y2hlZC1zZWNyZXQtdmFsdWU="},"metadata":{"name":"b"},"kind":"Secret"}})");
  CHECK(watched("watched-secret-value") == "REDACTED");
  // A ConfigMap's data is no secret.
  Redactor config;
  config.HoldSecretsIn(R"({"kind":"ConfigMap","data":{"k":"not-a-secret-at-all"}})");
  CHECK(config("not-a-secret-at-all") == "not-a-secret-at-all");
  // What is not JSON, or too deep for it, is survived.
  CHECK_NOTHROW(Redactor().HoldSecretsIn(std::string(100'000, '[') + R"({"kind":"Secret"})"));
  CHECK_NOTHROW(Redactor().HoldSecretsIn(R"({"kind":"Secret","data":{"k":"%%%not base64%%%"}})"));
}

}  // namespace
