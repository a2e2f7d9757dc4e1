#include <catch2/catch.hpp>

#include <httplib.h>

#include "testing/loopback_server.h"

#include "tputrain/http/curl_transport.h"

using tputrain::testing::LoopbackServer;

TEST_CASE("CurlTransport sends method, headers and body, and returns status, headers and body") {
  httplib::Server server;
  server.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 201;
    res.set_header("X-Seen-Agent", req.get_header_value("User-Agent"));
    res.set_content("got:" + req.body + ":" + req.get_header_value("X-Test"), "text/plain");
  });
  LoopbackServer loopback(server);
  tputrain::http::CurlTransport transport;
  tputrain::http::Request request{.method = "POST",
                                  .url = loopback.url("/echo"),
                                  .headers = {{"X-Test", "yes"}},
                                  .body = "{}",
                                  .idempotent = false};
  auto response = transport.Send(request);
  REQUIRE(response);
  CHECK(response->status == 201);
  CHECK(response->body == "got:{}:yes");
  CHECK_THAT(response->Header("x-seen-agent").value_or(""), Catch::StartsWith("tputrain/"));
}

TEST_CASE("CurlTransport reports 4xx/5xx as responses, not failures") {
  httplib::Server server;
  server.Get("/missing", [](const httplib::Request&, httplib::Response& res) {
    res.status = 404;
    res.set_content(R"({"error":{"code":404}})", "application/json");
  });
  LoopbackServer loopback(server);
  tputrain::http::CurlTransport transport;
  auto response = transport.Send({.url = loopback.url("/missing")});
  REQUIRE(response);
  CHECK(response->status == 404);
}

TEST_CASE("CurlTransport streams a body chunk by chunk") {
  httplib::Server server;
  server.Get("/stream", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/plain", [](size_t offset, httplib::DataSink& sink) {
      if (offset >= 9) {
        sink.done();
        return true;
      }
      sink.write("abc", 3);
      return true;
    });
  });
  LoopbackServer loopback(server);
  tputrain::http::CurlTransport transport;
  std::string seen;
  auto response = transport.Stream({.url = loopback.url("/stream")}, [&](std::string_view chunk) {
    seen += chunk;
    return true;
  });
  REQUIRE(response);
  CHECK(seen == "abcabcabc");
  CHECK(response->body.empty());
}

TEST_CASE("plain http is refused to anything but loopback; other schemes are refused") {
  CHECK(tputrain::http::CheckUrlAllowed("http://127.0.0.1:1/").has_value());
  CHECK(tputrain::http::CheckUrlAllowed("https://container.googleapis.com/").has_value());
  auto remote = tputrain::http::CheckUrlAllowed("http://example.com/");
  REQUIRE_FALSE(remote);
  CHECK_THAT(remote.error().message, Catch::Contains("only loopback"));
  CHECK_FALSE(tputrain::http::CheckUrlAllowed("file:///etc/passwd").has_value());
}

TEST_CASE("a refused connection is a transport failure of kind UNAVAILABLE") {
  tputrain::http::CurlTransport transport;
  auto response = transport.Send({.url = "http://127.0.0.1:1/"});
  REQUIRE_FALSE(response);
  CHECK(response.error().kind == tputrain::core::ErrorKind::kUnavailable);
}

TEST_CASE("CurlTransport sends the path as it is: dot segments are not resolved into another resource") {
  httplib::Server server;
  std::string seen;
  server.Delete(R"(/v1/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    seen = req.target;
    res.status = 400;
  });
  LoopbackServer loopback(server);
  tputrain::http::CurlTransport transport;
  auto response = transport.Send(
      {.method = "DELETE", .url = loopback.url("/v1/projects/p/clusters/c/nodePools/x/../../../victim")});
  REQUIRE(response);
  CHECK(seen == "/v1/projects/p/clusters/c/nodePools/x/../../../victim");
}

TEST_CASE("CurlTransport keeps at most max_response_bytes of a body and says so") {
  httplib::Server server;
  // 3 MiB sent chunked (no length announced), and a 404 as long: an error body is bounded too.
  auto endless = [](int status) {
    return [status](const httplib::Request&, httplib::Response& res) {
      res.status = status;
      res.set_chunked_content_provider("application/json", [](size_t offset, httplib::DataSink& sink) {
        if (offset >= 3 * 1024 * 1024) {
          sink.done();
          return true;
        }
        const std::string piece(64 * 1024, '[');
        sink.write(piece.data(), piece.size());
        return true;
      });
    };
  };
  server.Get("/big", endless(200));
  server.Get("/big-error", endless(404));
  server.Get("/small", [](const httplib::Request&, httplib::Response& res) { res.set_content("{}", "text/plain"); });
  LoopbackServer loopback(server);
  tputrain::http::CurlTransport transport({.max_response_bytes = 1024 * 1024});
  auto big = transport.Send({.url = loopback.url("/big")});
  REQUIRE_FALSE(big);
  CHECK(big.error().kind == tputrain::core::ErrorKind::kResourceExhausted);
  CHECK(big.error().message == "GET " + loopback.url("/big") + ": the reply is larger than 1 MiB");
  auto error_reply = transport.Stream({.url = loopback.url("/big-error")}, [](std::string_view) { return true; });
  REQUIRE_FALSE(error_reply);
  CHECK(error_reply.error().kind == tputrain::core::ErrorKind::kResourceExhausted);
  // A request may allow more, and a 2xx stream is never kept whole: it streams.
  auto allowed = transport.Send({.url = loopback.url("/big"), .max_response_bytes = 4 * 1024 * 1024});
  REQUIRE(allowed);
  CHECK(allowed->body.size() == 3 * 1024 * 1024);
  size_t streamed = 0;
  auto stream = transport.Stream({.url = loopback.url("/big")}, [&](std::string_view chunk) {
    streamed += chunk.size();
    return true;
  });
  REQUIRE(stream);
  CHECK(streamed == 3 * 1024 * 1024);
  CHECK(transport.Send({.url = loopback.url("/small")}));
}
