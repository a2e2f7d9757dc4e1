#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gcp/test_keys.h"
#include "testing/fake_clock.h"
#include "testing/loopback_server.h"
#include "tputrain/gcp/auth/adc.h"
#include "tputrain/gcp/auth/auth_transport.h"
#include "tputrain/http/curl_transport.h"

namespace {

using tputrain::core::Env;
using tputrain::core::ErrorKind;
using tputrain::gcp::auth::AuthTransport;
using tputrain::gcp::auth::DefaultCredentials;
using tputrain::testing::FakeClock;
using tputrain::testing::LoopbackServer;

// Wall time in 2027: tokens and assertions carry plausible timestamps.
const std::chrono::system_clock::time_point kWallStart{std::chrono::seconds(1'800'000'000)};

constexpr const char* kScope = "https://www.googleapis.com/auth/cloud-platform";

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("tputrain-auth-" + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) const {
    auto file = path / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file.string();
  }
};

tputrain::http::Request ApiGet(const LoopbackServer& server) {
  tputrain::http::Request request;
  request.url = server.url("/v1/projects/p/things");
  return request;
}

// The API side of every flow: accepts only the token the token endpoint issued last.
void ServeApi(httplib::Server& server, const std::string* expected_token, std::atomic<int>& hits) {
  server.Get("/v1/projects/p/things", [expected_token, &hits](const httplib::Request& req, httplib::Response& res) {
    ++hits;
    if (req.get_header_value("Authorization") != "Bearer " + *expected_token) {
      res.status = 401;
      res.set_content(R"({"error":{"code":401,"message":"bad token","status":"UNAUTHENTICATED"}})", "application/json");
      return;
    }
    res.set_content(R"({"things":[]})", "application/json");
  });
}

TEST_CASE("service account key: RS256 JWT verified by the token endpoint, its token used on the API call", "[auth]") {
  auto keys = tputrain::testing::GenerateRsaKeyPair();
  FakeClock clock{kWallStart};
  httplib::Server server;
  std::atomic<int> exchanges{0};
  std::atomic<int> api_hits{0};
  std::string issued;
  std::string claims_seen;
  bool signature_ok = false;
  server.Post("/token", [&](const httplib::Request& req, httplib::Response& res) {
    ++exchanges;
    std::string assertion = tputrain::testing::FormField(req.body, "assertion");
    signature_ok =
        tputrain::testing::FormField(req.body, "grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer" &&
        tputrain::testing::VerifyRs256(assertion, keys.public_pem);
    claims_seen = tputrain::testing::JwtClaimsJson(assertion);
    if (!signature_ok) {
      res.status = 400;
      res.set_content(R"({"error":"invalid_grant","error_description":"Invalid JWT Signature."})", "application/json");
      return;
    }
    issued = "ya29.sa-token-" + std::to_string(exchanges.load());
    res.set_content(nlohmann::json{{"access_token", issued}, {"expires_in", 3599}, {"token_type", "Bearer"}}.dump(),
                    "application/json");
  });
  ServeApi(server, &issued, api_hits);
  LoopbackServer loopback(server);

  TempDir dir;
  nlohmann::json key = {{"type", "service_account"},
                        {"project_id", "p"},
                        {"private_key_id", "abc123"},
                        {"private_key", keys.private_pem},
                        {"client_email", "sa@p.iam.gserviceaccount.com"},
                        {"token_uri", loopback.url("/token")}};
  Env env({{"GOOGLE_APPLICATION_CREDENTIALS", dir.Write("key.json", key.dump())}});
  tputrain::http::CurlTransport curl;
  auto tokens = DefaultCredentials(env, "", {&curl, &curl}, clock);
  REQUIRE(tokens.has_value());
  AuthTransport api(curl, **tokens);

  auto first = api.Send(ApiGet(loopback));
  REQUIRE(first.has_value());
  CHECK(first->status == 200);
  CHECK(signature_ok);
  auto claims = nlohmann::json::parse(claims_seen);
  CHECK(claims["iss"] == "sa@p.iam.gserviceaccount.com");
  CHECK(claims["scope"] == kScope);
  CHECK(claims["aud"] == "https://oauth2.googleapis.com/token");
  auto now = std::chrono::duration_cast<std::chrono::seconds>(clock.WallNow().time_since_epoch()).count();
  CHECK(claims["iat"] == now);
  CHECK(claims["exp"] == now + 3600);

  SECTION("the token is cached until shortly before it expires") {
    REQUIRE(api.Send(ApiGet(loopback)).has_value());
    CHECK(exchanges == 1);
    clock.Advance(std::chrono::seconds(3599 - 200));  // inside the refresh margin
    auto later = api.Send(ApiGet(loopback));
    REQUIRE(later.has_value());
    CHECK(later->status == 200);
    CHECK(exchanges == 2);
    CHECK(api_hits == 3);
  }
  SECTION("a 401 refreshes the token once and resends") {
    issued = "ya29.revoked";  // the server no longer accepts what tputrain holds
    auto again = api.Send(ApiGet(loopback));
    REQUIRE(again.has_value());
    CHECK(again->status == 200);
    CHECK(exchanges == 2);
    CHECK(api_hits == 3);  // 200, 401, 200
  }
  SECTION("the info names the account and the file, not the token") {
    auto info = (*tokens)->Info();
    REQUIRE(info.has_value());
    CHECK(info->source == "service_account");
    CHECK(info->account == "sa@p.iam.gserviceaccount.com");
  }
}

TEST_CASE("authorized_user file: the refresh-token grant", "[auth]") {
  FakeClock clock{kWallStart};
  httplib::Server server;
  std::atomic<int> api_hits{0};
  std::string issued = "none";
  std::string form;
  server.Post("/oauth2/token", [&](const httplib::Request& req, httplib::Response& res) {
    form = req.body;
    if (tputrain::testing::FormField(req.body, "grant_type") != "refresh_token" ||
        tputrain::testing::FormField(req.body, "refresh_token") != "1//refresh-secret" ||
        tputrain::testing::FormField(req.body, "client_secret") != "client-secret-value") {
      res.status = 400;
      // Echoes the refresh token, in prose no pattern can find: only its value can.
      nlohmann::json error = {{"error", "invalid_grant"},
                              {"error_description", "Token " + tputrain::testing::FormField(req.body, "refresh_token") +
                                                        " has been expired or revoked."}};
      res.set_content(error.dump(), "application/json");
      return;
    }
    issued = "ya29.user-token";
    res.set_content(R"({"access_token":"ya29.user-token","expires_in":3599,"token_type":"Bearer"})",
                    "application/json");
  });
  ServeApi(server, &issued, api_hits);
  LoopbackServer loopback(server);
  TempDir dir;
  nlohmann::json file = {{"type", "authorized_user"},
                         {"client_id", "123.apps.googleusercontent.com"},
                         {"client_secret", "client-secret-value"},
                         {"refresh_token", "1//refresh-secret"},
                         {"token_uri", loopback.url("/oauth2/token")},
                         {"account", "user@example.com"}};
  tputrain::http::CurlTransport curl;

  SECTION("gcloud's ADC file under CLOUDSDK_CONFIG") {
    dir.Write("gcloud/application_default_credentials.json", file.dump());
    Env env({{"CLOUDSDK_CONFIG", (dir.path / "gcloud").string()}});
    auto tokens = DefaultCredentials(env, "", {&curl, &curl}, clock);
    REQUIRE(tokens.has_value());
    AuthTransport api(curl, **tokens);
    auto reply = api.Send(ApiGet(loopback));
    REQUIRE(reply.has_value());
    CHECK(reply->status == 200);
    CHECK(tputrain::testing::FormField(form, "client_id") == "123.apps.googleusercontent.com");
    CHECK((*tokens)->Info()->account == "user@example.com");
  }
  SECTION("a revoked refresh token is an Unauthenticated error naming the file; the echoed token is never printed") {
    file["refresh_token"] = "1//revoked-refresh-token";
    Env env({{"GOOGLE_APPLICATION_CREDENTIALS", dir.Write("user.json", file.dump())}});
    tputrain::core::Redactor printed;
    auto tokens = DefaultCredentials(env, "", {&curl, &curl, &printed}, clock);
    REQUIRE(tokens.has_value());
    auto token = (*tokens)->Token();
    REQUIRE_FALSE(token.has_value());
    CHECK(token.error().kind == ErrorKind::kUnauthenticated);
    const std::string line = printed(token.error().message);
    CHECK(line.find("user.json") != std::string::npos);
    CHECK(line.find("invalid_grant: Token REDACTED has been expired") != std::string::npos);
    CHECK(line.find("revoked-refresh-token") == std::string::npos);
    CHECK(printed("client_secret is client-secret-value") == "client_secret is REDACTED");
  }
}

TEST_CASE("metadata server: token and account with Metadata-Flavor: Google", "[auth]") {
  FakeClock clock{kWallStart};
  httplib::Server server;
  std::atomic<int> api_hits{0};
  std::string issued = "ya29.metadata-token";
  bool flavor_sent = true;
  server.Get("/computeMetadata/v1/instance/service-accounts/default/token",
             [&](const httplib::Request& req, httplib::Response& res) {
               flavor_sent = flavor_sent && req.get_header_value("Metadata-Flavor") == "Google";
               res.set_header("Metadata-Flavor", "Google");
               res.set_content(R"({"access_token":"ya29.metadata-token","expires_in":3000,"token_type":"Bearer"})",
                               "application/json");
             });
  server.Get("/computeMetadata/v1/instance/service-accounts/default/email",
             [&](const httplib::Request& req, httplib::Response& res) {
               flavor_sent = flavor_sent && req.get_header_value("Metadata-Flavor") == "Google";
               res.set_header("Metadata-Flavor", "Google");
               res.set_content("node-sa@p.iam.gserviceaccount.com", "application/text");
             });
  ServeApi(server, &issued, api_hits);
  LoopbackServer loopback(server);
  TempDir dir;
  // No token file, no GOOGLE_APPLICATION_CREDENTIALS, an empty gcloud config: the metadata server.
  Env env(
      {{"GCE_METADATA_HOST", "127.0.0.1:" + std::to_string(loopback.port())}, {"CLOUDSDK_CONFIG", dir.path.string()}});
  tputrain::http::CurlTransport curl;
  auto tokens = DefaultCredentials(env, "", {&curl, &curl}, clock);
  REQUIRE(tokens.has_value());
  AuthTransport api(curl, **tokens);
  auto reply = api.Send(ApiGet(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  auto info = (*tokens)->Info();
  REQUIRE(info.has_value());
  CHECK(info->source == "metadata_server");
  CHECK(info->account == "node-sa@p.iam.gserviceaccount.com");
  CHECK(flavor_sent);
}

TEST_CASE("no metadata server and no files: exit 4 with what was tried", "[auth]") {
  FakeClock clock{kWallStart};
  TempDir dir;
  httplib::Server server;  // answers 404 without the Metadata-Flavor header
  LoopbackServer loopback(server);
  Env env(
      {{"GCE_METADATA_HOST", "127.0.0.1:" + std::to_string(loopback.port())}, {"CLOUDSDK_CONFIG", dir.path.string()}});
  tputrain::http::CurlTransport curl;
  auto tokens = DefaultCredentials(env, "", {&curl, &curl}, clock);
  REQUIRE(tokens.has_value());
  auto token = (*tokens)->Token();
  REQUIRE_FALSE(token.has_value());
  CHECK(tputrain::core::ExitCodeFor(token.error()) == 4);
  CHECK(token.error().message.find("GOOGLE_APPLICATION_CREDENTIALS") != std::string::npos);
}

TEST_CASE("access token file: first in the order, re-read after a 401", "[auth]") {
  FakeClock clock{kWallStart};
  TempDir dir;
  std::string path = dir.Write("token", "ya29.from-file\n");
  Env env({{"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", path}, {"GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/key.json"}});
  tputrain::http::CurlTransport curl;
  auto tokens = DefaultCredentials(env, "", {&curl, &curl}, clock);
  REQUIRE(tokens.has_value());
  CHECK((*tokens)->Token().value() == "ya29.from-file");
  dir.Write("token", "ya29.rotated");
  CHECK((*tokens)->Token().value() == "ya29.from-file");
  (*tokens)->Invalidate();
  CHECK((*tokens)->Token().value() == "ya29.rotated");
  SECTION("the flag beats the variable") {
    auto flagged = DefaultCredentials(env, dir.Write("flag-token", "ya29.flag"), {&curl, &curl}, clock);
    REQUIRE(flagged.has_value());
    CHECK((*flagged)->Token().value() == "ya29.flag");
  }
}

TEST_CASE("missing or malformed credentials files: one line naming the file, exit 4", "[auth]") {
  FakeClock clock{kWallStart};
  TempDir dir;
  tputrain::http::CurlTransport curl;
  auto expect_failure = [&](const std::string& path, const std::string& problem) {
    Env env({{"GOOGLE_APPLICATION_CREDENTIALS", path}});
    auto tokens = DefaultCredentials(env, "", {&curl, &curl}, clock);
    REQUIRE_FALSE(tokens.has_value());
    CHECK(tokens.error().kind == ErrorKind::kUnauthenticated);
    CHECK(tputrain::core::ExitCodeFor(tokens.error()) == 4);
    CHECK(tokens.error().message.find(path) != std::string::npos);
    CHECK(tokens.error().message.find(problem) != std::string::npos);
    CHECK(tokens.error().message.find('\n') == std::string::npos);
  };
  expect_failure((dir.path / "absent.json").string(), "No such file");
  expect_failure(dir.Write("garbage.json", "{not json"), "not a JSON object");
  expect_failure(dir.Write("notype.json", R"({"client_email":"a@b"})"), "no \"type\"");
  expect_failure(dir.Write("external.json", R"({"type":"external_account"})"), "not supported");
  expect_failure(dir.Write("nokey.json", R"({"type":"service_account","client_email":"a@b","token_uri":"https://x/"})"),
                 "missing \"private_key\"");
  expect_failure(
      dir.Write(
          "badkey.json",
          R"({"type":"service_account","client_email":"a@b","token_uri":"https://x/","private_key":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"})"),
      "not a PEM private key");
  expect_failure(dir.Write("user.json", R"({"type":"authorized_user","client_id":"c","client_secret":"s"})"),
                 "missing \"refresh_token\"");
  Env empty_token({{"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", dir.Write("empty", "\n")}});
  auto tokens = DefaultCredentials(empty_token, "", {&curl, &curl}, clock);
  REQUIRE_FALSE(tokens.has_value());
  CHECK(tokens.error().message.find("empty") != std::string::npos);
}

}  // namespace
