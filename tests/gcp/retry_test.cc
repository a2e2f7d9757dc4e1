#include <atomic>
#include <vector>

#include <catch2/catch.hpp>

#include "testing/fake_clock.h"
#include "testing/loopback_server.h"
#include "tputrain/gcp/error_from_http.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/http/retrying_transport.h"

namespace {

using tputrain::http::RetryingTransport;
using tputrain::testing::FakeClock;
using tputrain::testing::LoopbackServer;

constexpr const char* kUnavailable =
    R"({"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}})";
constexpr const char* kRateLimited =
    R"({"error":{"code":429,"message":"Too many operations: cluster \"c\" hits the concurrent operations quota 5, please try again later.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}})";
constexpr const char* kQuota =
    R"({"error":{"code":429,"message":"Quota exceeded for quota metric 'TPU v5 lite PodSlice chips'.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com"}]}})";

struct Scripted {
  httplib::Server server;
  std::atomic<int> attempts{0};
  int failures = 0;
  int status = 503;
  std::string body = kUnavailable;
  std::string retry_after;

  Scripted() {
    auto handler = [this](const httplib::Request&, httplib::Response& res) {
      if (++attempts <= failures) {
        res.status = status;
        if (!retry_after.empty()) res.set_header("Retry-After", retry_after);
        res.set_content(body, "application/json");
        return;
      }
      res.set_content(R"({"name":"ok"})", "application/json");
    };
    server.Get("/v1/thing", handler);
    server.Post("/v1/things", handler);
  }
};

tputrain::http::Request Get(const LoopbackServer& loopback) {
  tputrain::http::Request request;
  request.url = loopback.url("/v1/thing");
  return request;
}

// A create, as the API clients send it: not idempotent.
tputrain::http::Request Create(const LoopbackServer& loopback) {
  tputrain::http::Request request;
  request.method = "POST";
  request.url = loopback.url("/v1/things");
  request.body = R"({"name":"n"})";
  request.idempotent = false;
  return request;
}

TEST_CASE("503 three times, then success: four attempts, three backoff waits, no sleep", "[retry]") {
  Scripted scripted;
  scripted.failures = 3;
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {}, tputrain::gcp::RetryDelayOf);
  auto reply = retrying.Send(Get(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  CHECK(scripted.attempts == 4);
  REQUIRE(sleeper.sleeps().size() == 3);
  // Exponential with jitter: each wait within [ceiling/2, ceiling] of 1 s, 2 s, 4 s.
  for (size_t i = 0; i < 3; ++i) {
    long long ceiling = 1000LL << i;
    CHECK(sleeper.sleeps()[i].count() >= ceiling / 2);
    CHECK(sleeper.sleeps()[i].count() <= ceiling);
  }
}

TEST_CASE("503 forever: gives up after max_attempts and returns the last reply", "[retry]") {
  Scripted scripted;
  scripted.failures = 100;
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {.max_attempts = 4}, tputrain::gcp::RetryDelayOf);
  auto reply = retrying.Send(Get(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == 503);
  CHECK(scripted.attempts == 4);
  auto error = tputrain::gcp::ErrorFromHttp(*reply, "test.get");
  CHECK(error.kind == tputrain::core::ErrorKind::kUnavailable);
}

TEST_CASE("429 with RetryInfo is retried after the server's delay", "[retry]") {
  Scripted scripted;
  scripted.failures = 1;
  scripted.status = 429;
  scripted.body = kRateLimited;
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {}, tputrain::gcp::RetryDelayOf);
  auto reply = retrying.Send(Get(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  CHECK(scripted.attempts == 2);
  REQUIRE(sleeper.sleeps().size() == 1);
  CHECK(sleeper.sleeps()[0] == std::chrono::seconds(30));
}

TEST_CASE("429 with Retry-After is retried after that many seconds", "[retry]") {
  Scripted scripted;
  scripted.failures = 2;
  scripted.status = 429;
  scripted.body = R"({"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}})";
  scripted.retry_after = "7";
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {}, tputrain::gcp::RetryDelayOf);
  auto reply = retrying.Send(Get(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  CHECK(scripted.attempts == 3);
  REQUIRE(sleeper.sleeps().size() == 2);
  CHECK(sleeper.sleeps()[0] >= std::chrono::seconds(7));
  CHECK(sleeper.sleeps()[1] >= std::chrono::seconds(7));
}

TEST_CASE("429 without retry information is quota: one attempt, reported as such", "[retry]") {
  Scripted scripted;
  scripted.failures = 5;
  scripted.status = 429;
  scripted.body = kQuota;
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {}, tputrain::gcp::RetryDelayOf);
  auto reply = retrying.Send(Get(loopback));
  REQUIRE(reply.has_value());
  CHECK(scripted.attempts == 1);
  CHECK(sleeper.sleeps().empty());
  auto error = tputrain::gcp::ErrorFromHttp(*reply, "tpu.nodes.get");
  CHECK(error.kind == tputrain::core::ErrorKind::kResourceExhausted);
  CHECK(error.reason == "RATE_LIMIT_EXCEEDED");
  CHECK(error.message == "Quota exceeded for quota metric 'TPU v5 lite PodSlice chips'.");
  CHECK(error.http_status == 429);
}

TEST_CASE("429 for a request-rate quota (per minute) is retried with backoff", "[retry]") {
  Scripted scripted;
  scripted.failures = 2;
  scripted.status = 429;
  scripted.body = R"({"error":{"code":429,"message":"Quota exceeded for quota metric 'Read requests' and limit 'Read )"
                  R"(requests per minute' of service 'tpu.googleapis.com'.","status":"RESOURCE_EXHAUSTED"}})";
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {}, tputrain::gcp::RetryDelayOf);
  auto reply = retrying.Send(Get(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  CHECK(scripted.attempts == 3);
  REQUIRE(sleeper.sleeps().size() == 2);
  CHECK(sleeper.sleeps()[0] >= std::chrono::seconds(1));
  CHECK(sleeper.sleeps()[1] >= std::chrono::seconds(1));
}

TEST_CASE("non-retryable statuses are tried exactly once", "[retry]") {
  auto status = GENERATE(400, 401, 403, 404, 409);
  Scripted scripted;
  scripted.failures = 5;
  scripted.status = status;
  scripted.body = R"({"error":{"code":)" + std::to_string(status) + R"(,"message":"no","status":"INVALID_ARGUMENT"}})";
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {}, tputrain::gcp::RetryDelayOf);
  auto reply = retrying.Send(Get(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == status);
  CHECK(scripted.attempts == 1);
  CHECK(sleeper.sleeps().empty());
}

TEST_CASE("a create POST that fails ambiguously is not sent again", "[retry]") {
  Scripted scripted;
  scripted.failures = 5;
  auto status = GENERATE(500, 502, 504);
  scripted.status = status;
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {}, tputrain::gcp::RetryDelayOf);
  // The caller resolves it by reading the resource back (GET, then adopt), never a blind POST.
  auto reply = retrying.Send(Create(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == status);
  CHECK(scripted.attempts == 1);
}

TEST_CASE("a create POST answered 503 is retried: the server says it did not act", "[retry]") {
  Scripted scripted;
  scripted.failures = 2;
  LoopbackServer loopback(scripted.server);
  tputrain::http::CurlTransport curl;
  FakeClock sleeper;
  RetryingTransport retrying(curl, sleeper, {}, tputrain::gcp::RetryDelayOf);
  auto reply = retrying.Send(Create(loopback));
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  CHECK(scripted.attempts == 3);
}

}  // namespace
