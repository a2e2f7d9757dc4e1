// Random deep, large and non-UTF-8 JSON and YAML sent to `tputrain emulator start` over HTTP, on
// the routes that read a body (and GETs, paths and queries of the same kind): every request is
// answered, the process lives, its log and state still answer and parse, and its peak memory
// (VmHWM) stays within a generous bound. Seeded and printed: TPUTRAIN_FUZZ_SEED repeats a run,
// TPUTRAIN_FUZZ_ITERATIONS scales it.
#include <catch2/catch.hpp>

#include <iostream>

#include <nlohmann/json.hpp>

#include "emulator/emulator_process.h"
#include "testing/hostile_text.h"

namespace tputrain::emulator::testing {
namespace {

using tputrain::testing::HostileText;

struct Target {
  std::string method;
  std::string path;
  std::string sample;  // a body the route takes
  std::string headers = "Authorization: Bearer t\r\nContent-Type: application/json";
};

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"POST", "/v2/projects/p/locations/us-east5-a/nodes?nodeId=fz",
       R"({"acceleratorType": "v5p-8", "runtimeVersion": "v2-alpha-tpuv5", "labels": {"a": "b"}})"},
      {"PATCH", "/v2/projects/p/locations/us-east5-a/nodes/fz?updateMask=labels", R"({"labels": {"a": "c"}})"},
      {"POST", "/v2/projects/p/locations/us-east5-a/queuedResources?queuedResourceId=q",
       R"({"tpu": {"nodeSpec": [{"parent": "projects/p/locations/us-east5-a", "nodeId": "q"}]}})"},
      {"POST", "/v1/projects/p/locations/us-east5-b/clusters", R"({"cluster": {"name": "c"}})"},
      {"POST", "/v1/projects/p/locations/us-east5-b/clusters/c/nodePools",
       R"({"nodePool": {"name": "np", "initialNodeCount": 1}})"},
      {"POST", "/storage/v1/b?project=p", R"({"name": "fuzz-bucket", "labels": {"a": "b"}})"},
      {"PUT", "/storage/v1/b/fuzz-bucket/iam", R"({"bindings": [{"role": "roles/storage.admin", "members": []}]})"},
      {"POST", "/upload/storage/v1/b/fuzz-bucket/o?uploadType=resumable&name=o", R"({"contentType": "text/plain"})"},
      {"POST", "/upload/storage/v1/b/fuzz-bucket/o?uploadType=multipart",
       "--b\r\nContent-Type: application/json\r\n\r\n{\"name\": \"m\"}\r\n--b\r\nContent-Type: "
       "text/plain\r\n\r\nhi\r\n--b--",
       "Authorization: Bearer t\r\nContent-Type: multipart/related; boundary=b"},
      {"POST", "/v1/projects/p/serviceAccounts", R"({"accountId": "fuzz-sa", "serviceAccount": {}})"},
      {"POST", "/v1/projects/p:setIamPolicy", R"({"policy": {"bindings": []}})"},
      {"POST", "/v1/projects/p/builds", R"({"steps": [{"name": "gcr.io/cloud-builders/docker", "args": ["build"]}]})"},
      {"POST", "/v1/projects/p/locations/us-east5/repositories?repositoryId=r", R"({"format": "DOCKER"})"},
      {"POST", "/compute/v1/projects/p/global/firewalls", R"({"name": "fw", "network": "global/networks/default"})"},
      {"POST", "/v1/projects/p/services:batchEnable", R"({"serviceIds": ["tpu.googleapis.com"]})"},
      {"POST", "/batch/compute/v1",
       "--x\r\nContent-Type: application/http\r\n\r\nGET /compute/v1/projects/p/global/firewalls/fw "
       "HTTP/1.1\r\n\r\n--x--",
       "Authorization: Bearer t\r\nContent-Type: multipart/mixed; boundary=x"},
  };
  return targets;
}

TEST_CASE("random deep, large and non-UTF-8 JSON and YAML to the emulator: no crash, bounded memory", "[unit][fuzz]") {
  const uint64_t seed = tputrain::testing::FuzzSeed();
  std::cout << "http_fuzz_test: TPUTRAIN_FUZZ_SEED=" << seed << "\n" << std::flush;
  INFO("TPUTRAIN_FUZZ_SEED=" << seed);
  HostileText hostile(seed);
  EmulatorProcess emulator;
  REQUIRE(emulator.ready());
  const int iterations = tputrain::testing::FuzzIterations(5000);
  int answered = 0;
  for (int i = 0; i < iterations; ++i) {
    const Target& target = hostile.Pick(Targets());
    // A large body (near and past the 10 MiB bound) one time in 60: each is a few hundred ms.
    const bool large_ok = hostile.OneIn(60);
    const size_t max_bytes = large_ok ? 10 * 1024 * 1024 : 64 * 1024;
    std::string body =
        hostile.OneIn(4) ? hostile.Yaml(target.sample, max_bytes) : hostile.Json(target.sample, max_bytes);
    if (!large_ok && body.size() > 2 * 1024 * 1024) body.resize(2 * 1024 * 1024);
    std::string path = target.path;
    if (hostile.OneIn(10)) path += (path.find('?') == std::string::npos ? "?" : "&") + std::string("x=%FF%C3");
    if (hostile.OneIn(20)) path += "/%ED%A0%80";
    const std::string method = hostile.OneIn(20) ? "GET" : target.method;
    const auto reply = RawExchange(
        emulator.port(), method + " " + path + " HTTP/1.1\r\n" + target.headers, body.size(),
        [&](size_t offset, size_t wanted) { return body.substr(offset, wanted); }, hostile.OneIn(5));
    INFO("request " << i << ": " << method << " " << path << ", a body of " << body.size() << " bytes");
    INFO("answered " << reply.status << ": " << reply.body.substr(0, 300));
    REQUIRE(reply.status != 0);  // answered: the process is alive and in step with the connection
    CHECK(reply.status < 500);
    ++answered;
    if (i % 500 == 499) {
      REQUIRE(emulator.Send("POST", "/_emulator/reset").status == 200);  // the world stays small
    }
  }
  // Everything it kept still reads back.
  const auto log = emulator.Send("GET", "/_emulator/requests");
  REQUIRE(log.status == 200);
  CHECK(nlohmann::json::accept(log.body));
  const auto state = emulator.Send("GET", "/_emulator/state");
  REQUIRE(state.status == 200);
  CHECK(nlohmann::json::accept(state.body));
  CHECK(answered == iterations);
  const long peak = emulator.PeakRssKib();
  std::cout << "http_fuzz_test: " << iterations << " requests, emulator peak RSS " << peak / 1024 << " MiB\n";
  // Generous: bodies are at most 10 MiB and the log 64 MiB; one unbounded copy of a deep body or
  // of a pretty-printed log went past a gigabyte.
  CHECK(peak < 768 * 1024);
  CHECK(emulator.running());
}

}  // namespace
}  // namespace tputrain::emulator::testing
