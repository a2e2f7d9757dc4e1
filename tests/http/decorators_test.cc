#include <deque>
#include <sstream>

#include <catch2/catch.hpp>

#include "testing/fake_transport.h"

#include "tputrain/http/credential.h"
#include "tputrain/http/dry_run_transport.h"
#include "tputrain/http/logging_transport.h"
#include "tputrain/http/retrying_transport.h"
#include "tputrain/http/secret_holding_transport.h"

namespace {

using tputrain::core::Result;
using tputrain::http::Request;
using tputrain::http::Response;

using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;

// The time a logged request seems to take: the logger reads the clock before and after it.
constexpr std::chrono::milliseconds kRequestTime{12};

Result<Response> ConnectionRefused() {
  return tputrain::core::Fail(
      tputrain::core::Error::Make(tputrain::core::ErrorKind::kUnavailable, "connection refused"));
}

Result<Response> Timeout() {
  return tputrain::core::Fail(tputrain::core::Error::Make(tputrain::core::ErrorKind::kDeadlineExceeded, "timed out"));
}

Request Post() {
  Request request;
  request.method = "POST";
  request.url = "https://tpu.googleapis.com/v2/projects/p/locations/z/nodes?nodeId=n";
  request.body = R"({"acceleratorType":"v5litepod-8"})";
  request.idempotent = false;
  return request;
}

TEST_CASE("connection errors are retried for idempotent requests only", "[retry]") {
  FakeTransport inner;
  FakeClock sleeper;
  tputrain::http::RetryingTransport retrying(inner, sleeper);
  inner.Reply(ConnectionRefused());
  inner.Reply(Timeout());
  inner.Reply(Response{200, {}, "{}"});
  Request get;
  get.url = "https://tpu.googleapis.com/v2/x";
  auto reply = retrying.Send(get);
  REQUIRE(reply.has_value());
  CHECK(inner.requests().size() == 3);
  CHECK(sleeper.sleeps().size() == 2);

  inner.Clear();
  inner.Reply(Timeout());
  inner.Reply(Response{200, {}, "{}"});
  auto create = retrying.Send(Post());
  REQUIRE_FALSE(create.has_value());  // ambiguous: the caller reads the resource back
  CHECK(inner.requests().size() == 1);
}

TEST_CASE("a cancelled backoff returns the last reply at once", "[retry]") {
  FakeTransport inner;
  FakeClock sleeper;
  sleeper.CancelSleeps();
  tputrain::http::RetryingTransport retrying(inner, sleeper);
  inner.Reply(Response{503, {}, ""});
  inner.Reply(Response{200, {}, ""});
  auto reply = retrying.Send(Request{});
  REQUIRE(reply.has_value());
  CHECK(reply->status == 503);
  CHECK(inner.requests().size() == 1);
}

TEST_CASE("a server delay beyond the policy's limit is not waited for", "[retry]") {
  FakeTransport inner;
  FakeClock sleeper;
  tputrain::http::RetryingTransport retrying(inner, sleeper, {.max_server_delay = std::chrono::seconds(60)});
  inner.Reply(Response{429, {{"Retry-After", "3600"}}, ""});
  auto reply = retrying.Send(Request{});
  REQUIRE(reply.has_value());
  CHECK(reply->status == 429);
  CHECK(sleeper.sleeps().empty());
}

TEST_CASE("--verbose logs method, URL, status and time; --log-http adds redacted bodies", "[logging]") {
  FakeTransport inner;
  FakeClock clock;
  clock.StepEachRead(kRequestTime);
  std::ostringstream sink;
  Request request;
  request.method = "POST";
  request.url = "https://oauth2.googleapis.com/token";
  request.headers = {{"Authorization", "Bearer ya29.header-secret"}};
  request.body = "grant_type=refresh_token&client_id=c&client_secret=s3cr3t&refresh_token=1//r3fr3sh";
  inner.Reply(Response{200, {}, R"({"access_token": "ya29.body-secret", "expires_in": 3599, "id_token": "eyJ.x.y"})"});

  SECTION("verbose") {
    tputrain::core::Redactor redactor;
    tputrain::http::LoggingTransport logging(inner, sink, clock, false, redactor);
    REQUIRE(logging.Send(request).has_value());
    CHECK(sink.str() == "http: POST https://oauth2.googleapis.com/token -> 200 (12 ms)\n");
  }
  SECTION("bodies") {
    tputrain::core::Redactor redactor;
    tputrain::http::LoggingTransport logging(inner, sink, clock, true, redactor);
    REQUIRE(logging.Send(request).has_value());
    std::string text = sink.str();
    CHECK(text.find("Authorization: REDACTED") != std::string::npos);
    CHECK(text.find("client_id=c") != std::string::npos);
    CHECK(text.find("\"expires_in\": 3599") != std::string::npos);
    for (const char* secret : {"header-secret", "s3cr3t", "r3fr3sh", "body-secret", "eyJ.x.y"}) {
      INFO(secret);
      CHECK(text.find(secret) == std::string::npos);
    }
  }
}

// Gives a bearer token and counts how often it is asked, as CredentialTransport asks ADC.
class CountingCredential final : public tputrain::http::Credential {
 public:
  Result<tputrain::http::Headers> AuthHeaders() override {
    ++asked;
    return tputrain::http::Headers{{"Authorization", "Bearer " + token}};
  }
  void Invalidate() override {}
  std::string token = "ya29.dry-run-secret";
  int asked = 0;
};

// The stack src/workflow/root.cc builds for every API, innermost first: the network, the secret
// holder, --log-http, retries, the credential, and --dry-run outermost, above the credential.
struct ProductStack {
  FakeTransport network;
  FakeClock clock;
  std::ostringstream log;
  FakeClock sleeper;
  CountingCredential credential;
  std::ostringstream out;
  tputrain::core::Redactor redactor;
  tputrain::http::SecretHoldingTransport holding{network, redactor};
  tputrain::http::LoggingTransport logging{holding, log, clock, true, redactor};
  tputrain::http::RetryingTransport retrying{logging, sleeper};
  tputrain::http::CredentialTransport authorized{retrying, credential, &redactor};
  tputrain::http::DryRunTransport dry_run{authorized, out, redactor};
  ProductStack() { clock.StepEachRead(kRequestTime); }
};

TEST_CASE("a token a server echoes where no pattern finds it is still redacted: the stack holds what it sent",
          "[logging]") {
  ProductStack stack;
  // A 403 whose message quotes the token in prose: "ya29." is one pattern, but this token is not
  // Google's (a kubeconfig exec plugin's), so only its value can find it.
  stack.credential.token = "k8s-exec-plugin-token-0123456789";
  stack.network.Reply(Response{403, {}, R"({"message":"token k8s-exec-plugin-token-0123456789 may not list pods"})"});
  Request get;
  get.url = "https://10.0.0.1/api/v1/pods";
  auto reply = stack.dry_run.Send(get);
  REQUIRE(reply.has_value());
  CHECK(reply->status == 403);
  CHECK(stack.log.str().find("token REDACTED may not list pods") != std::string::npos);
  CHECK(stack.log.str().find("k8s-exec-plugin-token") == std::string::npos);
  CHECK(stack.redactor(reply->body) == R"({"message":"token REDACTED may not list pods"})");
}

TEST_CASE("--dry-run prints mutations exactly, above the credential, and sends none", "[dry-run]") {
  ProductStack stack;
  auto reply = stack.dry_run.Send(Post());
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  CHECK(tputrain::http::DryRunTransport::IsDryRunReply(*reply));
  Request del;
  del.method = "DELETE";
  del.url = "https://tpu.googleapis.com/v2/projects/p/locations/z/nodes/n";
  REQUIRE(stack.dry_run.Send(del).has_value());
  CHECK(stack.out.str() ==
        "POST https://tpu.googleapis.com/v2/projects/p/locations/z/nodes?nodeId=n\n"
        "{\"acceleratorType\":\"v5litepod-8\"}\n"
        "DELETE https://tpu.googleapis.com/v2/projects/p/locations/z/nodes/n\n");
  CHECK(stack.network.requests().empty());
  CHECK(stack.log.str().empty());      // nothing reached the wire, so --log-http has nothing to show
  CHECK(stack.credential.asked == 0);  // a dry run needs no token for what it only prints
}

TEST_CASE("under --dry-run a read goes through the whole stack: authorized, retried, logged", "[dry-run]") {
  ProductStack stack;
  stack.network.Reply(Response{503, {}, ""});
  stack.network.Reply(Response{200, {}, R"({"name":"n"})"});
  Request get;
  get.url = "https://tpu.googleapis.com/v2/projects/p/locations/z/nodes/n";
  auto reply = stack.dry_run.Send(get);
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  CHECK(reply->body == R"({"name":"n"})");
  CHECK_FALSE(tputrain::http::DryRunTransport::IsDryRunReply(*reply));
  REQUIRE(stack.network.requests().size() == 2);
  for (const auto& sent : stack.network.requests()) {
    CHECK(tputrain::http::FindHeader(sent.headers, "Authorization") ==
          std::optional<std::string>("Bearer ya29.dry-run-secret"));
  }
  CHECK(stack.credential.asked >= 1);
  CHECK(stack.sleeper.sleeps().size() == 1);
  CHECK(stack.out.str().empty());
  CHECK_THAT(stack.log.str(), Catch::Contains("GET " + get.url + " -> 503"));
  CHECK_THAT(stack.log.str(), Catch::Contains("GET " + get.url + " -> 200"));
  CHECK(stack.log.str().find("dry-run-secret") == std::string::npos);
}

TEST_CASE("under --dry-run a POST that only reads (getGuestAttributes) is sent, not printed", "[dry-run]") {
  ProductStack stack;
  stack.network.Reply(Response{200, {}, R"({"guestAttributes":[]})"});
  Request read;
  read.method = "POST";
  read.url = "https://tpu.googleapis.com/v2/projects/p/locations/z/nodes/n:getGuestAttributes";
  read.body = "{}";
  read.reads_only = true;
  auto reply = stack.dry_run.Send(read);
  REQUIRE(reply.has_value());
  CHECK_FALSE(tputrain::http::DryRunTransport::IsDryRunReply(*reply));
  CHECK(stack.network.requests().size() == 1);
  CHECK(stack.out.str().empty());
}

TEST_CASE("--log-http never prints a secret a server answers with: by name, and once read, anywhere", "[logging]") {
  ProductStack stack;
  stack.redactor.HoldField("tputrain-ray-token");
  const std::string token = "4f1c9e0a7b3d4c2e9f8a6b5c4d3e2f1a";
  // nodes.get: the token in the node's metadata map.
  stack.network.Reply(
      Response{200, {}, R"({"name":"n","metadata":{"tputrain-ray-token":")" + token + R"(","x":"y"}})"});
  // A server that echoes it with no name beside it.
  stack.network.Reply(Response{401, {}, R"({"error":{"message":"Ray says: bad token )" + token + R"("}})"});
  // Compute's shape, and the usual token fields of an exec plugin's or TokenRequest's answer.
  stack.network.Reply(Response{
      200,
      {},
      R"({"items":[{"key":"tputrain-ray-token","value":"abcdefgh-other"}],"status":{"token":"k8s-sa-token-xyz"}})"});
  Request get;
  get.url = "https://tpu.googleapis.com/v2/projects/p/locations/z/nodes/n";
  REQUIRE(stack.dry_run.Send(get).has_value());
  auto echoed = stack.dry_run.Send(get);
  REQUIRE(echoed.has_value());
  REQUIRE(stack.dry_run.Send(get).has_value());
  const std::string log = stack.log.str();
  for (const std::string& secret : {token, std::string("abcdefgh-other"), std::string("k8s-sa-token-xyz")}) {
    INFO(secret);
    CHECK(log.find(secret) == std::string::npos);
  }
  CHECK_THAT(log, Catch::Contains(R"("tputrain-ray-token":"REDACTED","x":"y")"));
  CHECK_THAT(log, Catch::Contains("Ray says: bad token REDACTED"));
  // What the caller prints of an answer (an error's message) goes through the same redactor.
  CHECK(stack.redactor(echoed->body).find(token) == std::string::npos);
}

TEST_CASE("--log-http shows a binary or large body as its size, and no server's escape sequence", "[logging]") {
  FakeTransport inner;
  FakeClock clock;
  clock.StepEachRead(kRequestTime);
  std::ostringstream sink;
  tputrain::core::Redactor redactor;
  redactor.HoldField("tputrain-ray-token");
  tputrain::http::LoggingTransport logging(inner, sink, clock, true, redactor);

  Request upload;
  upload.method = "POST";
  upload.url = "https://storage.googleapis.com/upload/storage/v1/b/p_cloudbuild/o?uploadType=media&name=s.tgz";
  upload.headers = {{"Content-Type", "application/gzip"}};
  upload.body = std::string("\x1f\x8b\x08\x00", 4) + std::string(3 * 1024 * 1024, '\0');
  // A large JSON answer with a held secret where it is cut: redacted whole before it is cut.
  redactor.Hold("held-secret-across-the-cut-9876");
  std::string large = R"({"items":[)";
  while (large.size() < 64 * 1024 - 20) large += R"({"name":"n"},)";
  large += R"({"echo":"held-secret-across-the-cut-9876"},)";
  while (large.size() < 200 * 1024) large += R"({"name":"n"},)";
  large += R"({"name":"n"}]})";
  inner.Reply(Response{200, {{"Content-Type", "application/json"}}, large});
  inner.Reply(Response{500, {}, "{\"message\":\"oops \x1b]0;pwned\x07\x1b[2J\"}"});
  REQUIRE(logging.Send(upload).has_value());
  Request get;
  get.url = "https://tpu.googleapis.com/v2/x";
  REQUIRE(logging.Send(get).has_value());

  const std::string text = sink.str();
  CHECK_THAT(text, Catch::Contains("http: request body: 3145732 bytes of application/gzip, not shown\n"));
  CHECK(text.size() < 100 * 1024);
  CHECK_THAT(text, Catch::Contains("http: response body (the first 64 KiB of " + std::to_string(large.size()) +
                                   " bytes):\n{\"items\":["));
  CHECK(text.find("held-secret") == std::string::npos);
  CHECK(text.find("held-s") == std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\x07') == std::string::npos);
  CHECK_THAT(text, Catch::Contains("oops \\x1b]0;pwned\\x07\\x1b[2J"));
}

}  // namespace
