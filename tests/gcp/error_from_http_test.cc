#include <catch2/catch.hpp>

#include "tputrain/gcp/endpoints.h"
#include "tputrain/gcp/error_from_http.h"

namespace {

using tputrain::core::ErrorKind;
using tputrain::gcp::ErrorFromHttp;

tputrain::http::Response Reply(int status, std::string body) { return {status, {}, std::move(body)}; }

TEST_CASE("AIP-193 errors: kind from status, reason from ErrorInfo, message verbatim", "[errors]") {
  auto error = ErrorFromHttp(
      Reply(
          403,
          R"({"error":{"code":403,"message":"Kubernetes Engine API has not been used in project p before or it is disabled.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","domain":"googleapis.com","metadata":{"service":"container.googleapis.com"}}]}})"),
      "container.projects.locations.clusters.create");
  CHECK(error.kind == ErrorKind::kPermissionDenied);
  CHECK(error.reason == "SERVICE_DISABLED");
  CHECK(error.metadata.at("service") == "container.googleapis.com");
  CHECK(error.message ==
        "container.googleapis.com is not enabled in this project: run 'tputrain services enable "
        "container.googleapis.com', or run the command again with --enable-apis");
  CHECK(error.http_status == 403);
  CHECK(error.where == "container.projects.locations.clusters.create");

  auto precondition = ErrorFromHttp(
      Reply(
          400,
          R"({"error":{"code":400,"message":"Cluster is running incompatible operation operation-1.","status":"FAILED_PRECONDITION"}})"),
      "x");
  CHECK(precondition.kind == ErrorKind::kFailedPrecondition);
  auto exists =
      ErrorFromHttp(Reply(409, R"({"error":{"code":409,"message":"Already exists","status":"ALREADY_EXISTS"}})"), "x");
  CHECK(exists.kind == ErrorKind::kAlreadyExists);
}

TEST_CASE("Cloud Storage's legacy error shape", "[errors]") {
  auto error = ErrorFromHttp(
      Reply(
          404,
          R"({"error":{"code":404,"message":"The specified bucket does not exist.","errors":[{"message":"The specified bucket does not exist.","domain":"global","reason":"notFound"}]}})"),
      "storage.buckets.get");
  CHECK(error.kind == ErrorKind::kNotFound);
  CHECK(error.reason == "notFound");
  CHECK(error.message == "The specified bucket does not exist.");
  CHECK(error.http_status == 404);
}

TEST_CASE("429: retry information makes it rate limiting, its absence quota", "[errors]") {
  auto limited = ErrorFromHttp(
      Reply(
          429,
          R"({"error":{"code":429,"message":"later","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}})"),
      "x");
  CHECK(limited.kind == ErrorKind::kResourceExhausted);
  CHECK(limited.reason == tputrain::gcp::kReasonRateLimited);
  auto quota = ErrorFromHttp(
      Reply(429, R"({"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}})"), "x");
  CHECK(quota.reason == tputrain::gcp::kReasonQuotaExceeded);
  CHECK(tputrain::gcp::ParseProtobufDuration("1.5s") == std::chrono::milliseconds(1500));
  CHECK_FALSE(tputrain::gcp::ParseProtobufDuration("soon").has_value());
}

TEST_CASE("a non-JSON error body still becomes an error, kind from the HTTP status", "[errors]") {
  auto error = ErrorFromHttp(Reply(502, "<html>Bad Gateway</html>"), "tpu.nodes.get");
  CHECK(error.kind == ErrorKind::kUnavailable);
  CHECK(error.http_status == 502);
  CHECK(error.message.find("502") != std::string::npos);
}

TEST_CASE("endpoints default to Google and follow CLOUDSDK_API_ENDPOINT_OVERRIDES_*", "[endpoints]") {
  auto defaults = tputrain::gcp::Endpoints::FromEnv(tputrain::core::Env());
  CHECK(defaults.container == "https://container.googleapis.com/");
  CHECK(defaults.storage == "https://storage.googleapis.com/storage/v1/");
  tputrain::core::Env env({{"CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", "http://127.0.0.1:18181/"},
                           {"CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU", "http://127.0.0.1:18182"},
                           {"CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE", "http://127.0.0.1:18183/storage/v1/"},
                           {"CLOUDSDK_API_ENDPOINT_OVERRIDES_IAM", "http://127.0.0.1:18184/"},
                           {"CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDRESOURCEMANAGER", "http://127.0.0.1:18185/"},
                           {"CLOUDSDK_API_ENDPOINT_OVERRIDES_ARTIFACTREGISTRY", "http://127.0.0.1:18186/"},
                           {"CLOUDSDK_API_ENDPOINT_OVERRIDES_SERVICEUSAGE", "http://127.0.0.1:18188/"}});
  auto endpoints = tputrain::gcp::Endpoints::FromEnv(env);
  CHECK(endpoints.container == "http://127.0.0.1:18181/");
  CHECK(endpoints.tpu == "http://127.0.0.1:18182/");
  CHECK(endpoints.storage == "http://127.0.0.1:18183/storage/v1/");
  CHECK(endpoints.iam == "http://127.0.0.1:18184/");
  CHECK(endpoints.cloudresourcemanager == "http://127.0.0.1:18185/");
  CHECK(endpoints.artifactregistry == "http://127.0.0.1:18186/");
  CHECK(endpoints.serviceusage == "http://127.0.0.1:18188/");
}

}  // namespace

TEST_CASE("a body that is not JSON is quoted up to 300 bytes, cut between characters, as UTF-8", "[errors]") {
  // A proxy's HTML page: 299 bytes, then "—" (three bytes) across the 300th.
  std::string page = std::string(299, 'x') + "\xe2\x80\x94 and more";
  auto error = ErrorFromHttp(Reply(502, page), "tpu.projects.locations.nodes.create");
  CHECK(error.message == "tpu.projects.locations.nodes.create: HTTP 502: " + std::string(299, 'x'));
  auto latin1 = ErrorFromHttp(Reply(503, "service indisponible \xe0 cette heure"), "x");
  CHECK(latin1.message == "x: HTTP 503: service indisponible \xef\xbf\xbd cette heure");
}

namespace {

// An error is one line; a server's line breaks (in a JSON message or a page that is not JSON) would
// make it read as two, and the second as tputrain's.
TEST_CASE("a server's message with line breaks is one line of error", "[errors]") {
  auto error = ErrorFromHttp(
      Reply(
          400,
          R"({"error":{"code":400,"message":"Invalid value.\nERROR: nothing\r\n\tmore","status":"INVALID_ARGUMENT"}})"),
      "tpu.projects.locations.nodes.create");
  CHECK(error.message == "Invalid value. ERROR: nothing more");
  auto page = ErrorFromHttp(Reply(502, "<html>\n<body>\n  Bad Gateway\n</body>\n</html>\n"), "container.get");
  CHECK(page.message == "container.get: HTTP 502: <html> <body> Bad Gateway </body> </html>");
}

}  // namespace
