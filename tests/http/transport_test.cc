#include <catch2/catch.hpp>

#include "tputrain/http/transport.h"

using tputrain::http::IsLoopbackHost;
using tputrain::http::ParseUrl;

TEST_CASE("only loopback hosts count as loopback") {
  CHECK(IsLoopbackHost("127.0.0.1"));
  CHECK(IsLoopbackHost("127.8.9.10"));
  CHECK(IsLoopbackHost("localhost"));
  CHECK(IsLoopbackHost("[::1]"));
  CHECK_FALSE(IsLoopbackHost("127.example.com"));
  CHECK_FALSE(IsLoopbackHost("10.0.0.1"));
  CHECK_FALSE(IsLoopbackHost("container.googleapis.com"));
}

TEST_CASE("URLs split into scheme, host, port and path") {
  auto parts = ParseUrl("http://127.0.0.1:8265/api/jobs/?x=1");
  REQUIRE(parts);
  CHECK(parts->scheme == "http");
  CHECK(parts->host == "127.0.0.1");
  CHECK(parts->port == 8265);
  CHECK(parts->path_and_query == "/api/jobs/?x=1");
  auto v6 = ParseUrl("https://[::1]/");
  REQUIRE(v6);
  CHECK(v6->host == "[::1]");
  CHECK(v6->port == 0);
  CHECK_FALSE(ParseUrl("no-scheme").has_value());
  CHECK_FALSE(ParseUrl("http://host:99999/").has_value());
}

TEST_CASE("header lookup ignores case") {
  tputrain::http::Response response;
  response.headers = {{"Content-Type", "application/json"}};
  CHECK(response.Header("content-type") == "application/json");
  CHECK_FALSE(response.Header("retry-after").has_value());
}

TEST_CASE("URL encoding keeps unreserved characters only") {
  CHECK(tputrain::http::UrlEncode("a b/c~") == "a%20b%2Fc~");
}

TEST_CASE("a path segment is never a dot segment", "[url]") {
  CHECK(tputrain::http::PathSegment(".") == "%2E");
  CHECK(tputrain::http::PathSegment("..") == "%2E%2E");
  CHECK(tputrain::http::PathSegment("...") == "...");
  CHECK(tputrain::http::PathSegment("a/../b") == "a%2F..%2Fb");
}
