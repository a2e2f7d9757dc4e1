#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gcp/test_keys.h"
#include "testing/loopback_server.h"
#include "testing/scoped_process.h"

namespace {

using tputrain::testing::LoopbackServer;
using tputrain::testing::ProcessOptions;
using tputrain::testing::RunProcess;

constexpr const char* kIssuedToken = "ya29.c.issued-secret-token-0123456789";
constexpr const char* kRefreshToken = "1//0refresh-secret-token-abcdef";
constexpr const char* kClientSecret = "GOCSPX-client-secret-value";

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / ("tputrain-auth-cli-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

// A token endpoint for both grants; it verifies the JWT so the CLI run exercises the real flow.
struct TokenServer {
  httplib::Server server;
  std::string public_pem;
  std::atomic<int> exchanges{0};
  TokenServer() {
    server.Post("/token", [this](const httplib::Request& req, httplib::Response& res) {
      ++exchanges;
      auto grant = tputrain::testing::FormField(req.body, "grant_type");
      bool ok = grant == "refresh_token"
                    ? tputrain::testing::FormField(req.body, "refresh_token") == kRefreshToken
                    : tputrain::testing::VerifyRs256(tputrain::testing::FormField(req.body, "assertion"), public_pem);
      if (!ok) {
        res.status = 400;
        res.set_content(R"({"error":"invalid_grant"})", "application/json");
        return;
      }
      res.set_content(nlohmann::json{{"access_token", kIssuedToken},
                                     {"expires_in", 3599},
                                     {"refresh_token", kRefreshToken},
                                     {"id_token", "eyJhbGciOi.id.token"}}
                          .dump(),
                      "application/json");
    });
  }
};

ProcessOptions AuthStatus(const std::string& credentials_file, const TempDir& dir) {
  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary(), "auth", "status", "--verbose", "--log-http", "--format", "json"};
  options.env = {{"GOOGLE_APPLICATION_CREDENTIALS", credentials_file},
                 {"CLOUDSDK_CONFIG", dir.path.string()},
                 {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", std::nullopt},
                 {"GCE_METADATA_HOST", "127.0.0.1:1"}};
  return options;
}

void CheckNoSecret(const std::string& output, const std::string& secret) {
  INFO("secret: " << secret);
  CHECK(output.find(secret) == std::string::npos);
}

TEST_CASE("auth status --verbose --log-http with a service account key prints no secret", "[auth][cli]") {
  auto keys = tputrain::testing::GenerateRsaKeyPair();
  TokenServer tokens;
  tokens.public_pem = keys.public_pem;
  LoopbackServer loopback(tokens.server);
  TempDir dir;
  nlohmann::json key = {{"type", "service_account"},
                        {"project_id", "p"},
                        {"private_key_id", "0123456789abcdef0123"},
                        {"private_key", keys.private_pem},
                        {"client_email", "sa@p.iam.gserviceaccount.com"},
                        {"token_uri", loopback.url("/token")}};
  auto run = RunProcess(AuthStatus(dir.Write("key.json", key.dump()), dir));
  std::string output = run.out + run.err;
  INFO(output);
  REQUIRE(run.exit_code == 0);
  CHECK(tokens.exchanges == 1);
  auto status = nlohmann::json::parse(run.out);
  CHECK(status["source"] == "service_account");
  CHECK(status["account"] == "sa@p.iam.gserviceaccount.com");
  // The token exchange was logged, with its secrets replaced.
  CHECK(run.err.find("http: POST " + loopback.url("/token") + " -> 200") != std::string::npos);
  CHECK(run.err.find("REDACTED") != std::string::npos);
  CheckNoSecret(output, kIssuedToken);
  CheckNoSecret(output, "issued-secret-token");
  CheckNoSecret(output, kRefreshToken);
  CheckNoSecret(output, "0123456789abcdef0123");
  CheckNoSecret(output, "eyJhbGciOi.id.token");
  // Every line of the private key's base64, and the JWT assertion's signature part.
  std::istringstream pem(keys.private_pem);
  for (std::string line; std::getline(pem, line);) {
    if (line.find("-----") == std::string::npos && line.size() > 16) CheckNoSecret(output, line);
  }
  CHECK(output.find("eyJhbGciOiJSUzI1NiI") == std::string::npos);  // the assertion's header
}

TEST_CASE("auth status --verbose --log-http with user credentials prints no secret", "[auth][cli]") {
  TokenServer tokens;
  LoopbackServer loopback(tokens.server);
  TempDir dir;
  nlohmann::json file = {{"type", "authorized_user"},           {"client_id", "123.apps.googleusercontent.com"},
                         {"client_secret", kClientSecret},      {"refresh_token", kRefreshToken},
                         {"token_uri", loopback.url("/token")}, {"account", "user@example.com"}};
  auto run = RunProcess(AuthStatus(dir.Write("user.json", file.dump()), dir));
  std::string output = run.out + run.err;
  INFO(output);
  REQUIRE(run.exit_code == 0);
  CHECK(nlohmann::json::parse(run.out)["account"] == "user@example.com");
  CheckNoSecret(output, kIssuedToken);
  CheckNoSecret(output, kRefreshToken);
  CheckNoSecret(output, "1%2F%2F0refresh-secret-token-abcdef");
  CheckNoSecret(output, kClientSecret);
}

TEST_CASE("auth print-access-token prints the token and only the token", "[auth][cli]") {
  TempDir dir;
  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary(), "auth", "print-access-token", "--access-token-file",
                  dir.Write("token", "ya29.file-token\n")};
  auto run = RunProcess(options);
  CHECK(run.exit_code == 0);
  CHECK(run.out == "ya29.file-token\n");
}

TEST_CASE("a missing credentials file: one line naming it, exit 4", "[auth][cli]") {
  TempDir dir;
  std::string missing = (dir.path / "missing-key.json").string();
  auto run = RunProcess(AuthStatus(missing, dir));
  CHECK(run.exit_code == 4);
  CHECK(run.out.empty());
  CHECK(run.err.find(missing) != std::string::npos);
  CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 1);
}

}  // namespace
