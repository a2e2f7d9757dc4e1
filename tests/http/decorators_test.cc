#include <deque>
#include <sstream>

#include <catch2/catch.hpp>

#include "tputrain/http/dry_run_transport.h"
#include "tputrain/http/logging_transport.h"
#include "tputrain/http/retrying_transport.h"

namespace {

using tputrain::core::Result;
using tputrain::http::Request;
using tputrain::http::Response;

// Scripted replies and recorded requests: transport behaviour without a network.
class ScriptedTransport final : public tputrain::http::Transport {
 public:
  Result<Response> Send(const Request& request) override {
    requests.push_back(request);
    if (script.empty()) return Response{200, {}, "{}"};
    auto next = script.front();
    script.pop_front();
    return next;
  }
  std::deque<Result<Response>> script;
  std::vector<Request> requests;
};

class FakeSleeper final : public tputrain::core::Sleeper {
 public:
  bool Sleep(std::chrono::milliseconds duration) override {
    waits.push_back(duration);
    return !cancelled;
  }
  std::vector<std::chrono::milliseconds> waits;
  bool cancelled = false;
};

class StepClock final : public tputrain::core::Clock {
 public:
  TimePoint Now() override { return now_ += std::chrono::milliseconds(12); }
  std::chrono::system_clock::time_point WallNow() override { return {}; }

 private:
  TimePoint now_{};
};

Result<Response> ConnectionRefused() {
  return tputrain::core::Fail(tputrain::core::Error::Make(tputrain::core::ErrorKind::kUnavailable, "connection refused"));
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
  ScriptedTransport inner;
  FakeSleeper sleeper;
  tputrain::http::RetryingTransport retrying(inner, sleeper);
  inner.script = {ConnectionRefused(), Timeout(), Response{200, {}, "{}"}};
  Request get;
  get.url = "https://tpu.googleapis.com/v2/x";
  auto reply = retrying.Send(get);
  REQUIRE(reply.has_value());
  CHECK(inner.requests.size() == 3);
  CHECK(sleeper.waits.size() == 2);

  inner.requests.clear();
  inner.script = {Timeout(), Response{200, {}, "{}"}};
  auto create = retrying.Send(Post());
  REQUIRE_FALSE(create.has_value());  // ambiguous: the caller reads the resource back
  CHECK(inner.requests.size() == 1);
}

TEST_CASE("a cancelled backoff returns the last reply at once", "[retry]") {
  ScriptedTransport inner;
  FakeSleeper sleeper;
  sleeper.cancelled = true;
  tputrain::http::RetryingTransport retrying(inner, sleeper);
  inner.script = {Response{503, {}, ""}, Response{200, {}, ""}};
  auto reply = retrying.Send(Request{});
  REQUIRE(reply.has_value());
  CHECK(reply->status == 503);
  CHECK(inner.requests.size() == 1);
}

TEST_CASE("a server delay beyond the policy's limit is not waited for", "[retry]") {
  ScriptedTransport inner;
  FakeSleeper sleeper;
  tputrain::http::RetryingTransport retrying(inner, sleeper, {.max_server_delay = std::chrono::seconds(60)});
  inner.script = {Response{429, {{"Retry-After", "3600"}}, ""}};
  auto reply = retrying.Send(Request{});
  REQUIRE(reply.has_value());
  CHECK(reply->status == 429);
  CHECK(sleeper.waits.empty());
}

TEST_CASE("--verbose logs method, URL, status and time; --log-http adds redacted bodies", "[logging]") {
  ScriptedTransport inner;
  StepClock clock;
  std::ostringstream sink;
  Request request;
  request.method = "POST";
  request.url = "https://oauth2.googleapis.com/token";
  request.headers = {{"Authorization", "Bearer ya29.header-secret"}};
  request.body = "grant_type=refresh_token&client_id=c&client_secret=s3cr3t&refresh_token=1//r3fr3sh";
  inner.script = {Response{200, {}, R"({"access_token": "ya29.body-secret", "expires_in": 3599, "id_token": "eyJ.x.y"})"}};

  SECTION("verbose") {
    tputrain::http::LoggingTransport logging(inner, sink, clock, false);
    REQUIRE(logging.Send(request).has_value());
    CHECK(sink.str() == "http: POST https://oauth2.googleapis.com/token -> 200 (12 ms)\n");
  }
  SECTION("bodies") {
    tputrain::http::LoggingTransport logging(inner, sink, clock, true);
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

TEST_CASE("--dry-run prints mutations exactly and sends none; reads pass through", "[dry-run]") {
  ScriptedTransport inner;
  std::ostringstream out;
  tputrain::http::DryRunTransport dry_run(inner, out);
  auto reply = dry_run.Send(Post());
  REQUIRE(reply.has_value());
  CHECK(reply->status == 200);
  CHECK(tputrain::http::DryRunTransport::IsDryRunReply(*reply));
  CHECK(inner.requests.empty());
  CHECK(out.str() ==
        "POST https://tpu.googleapis.com/v2/projects/p/locations/z/nodes?nodeId=n\n"
        "{\"acceleratorType\":\"v5litepod-8\"}\n");
  Request get;
  get.url = "https://tpu.googleapis.com/v2/x";
  REQUIRE(dry_run.Send(get).has_value());
  CHECK(inner.requests.size() == 1);
  Request del;
  del.method = "DELETE";
  del.url = "https://tpu.googleapis.com/v2/x";
  REQUIRE(dry_run.Send(del).has_value());
  CHECK(inner.requests.size() == 1);
}

}  // namespace
