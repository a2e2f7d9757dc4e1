#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "emulator/emulator_test_util.h"
#include "tputrain/emulator/handlers.h"

// What the emulator accepts of one request: JSON no deeper than Google's parser goes, bodies no
// larger than their path's bound, and a request log that stays small and readable whatever came.
namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;

const std::string kTpu = "/v2/projects/p/locations/us-east5-a";

std::string NestedArrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string NestedObjects(size_t depth) {
  std::string text;
  for (size_t i = 0; i < depth; ++i) text += "{\"a\":";
  text += "1";
  text.append(depth, '}');
  return text;
}

TEST_CASE("a body nesting 70,000 arrays is Google's 400 INVALID_ARGUMENT, and the emulator keeps serving") {
  Driver driver;
  const std::string deep = NestedArrays(70'000);  // ~140 KB: the issue's request
  auto reply = driver.Send("POST", kTpu + "/nodes?nodeId=deep", deep);
  REQUIRE(reply.status == 400);
  CHECK(reply.body ==
        json{{"error",
              {{"code", 400},
               {"message", "Invalid JSON payload received. The request body nests deeper than 100 levels."},
               {"status", "INVALID_ARGUMENT"}}}});
  // Each API that reads a body, in its own error shape.
  const std::string objects = NestedObjects(50'000);
  CHECK(driver.Send("POST", "/v1/projects/p/locations/us-east5-b/clusters", objects).status == 400);
  CHECK(driver.Send("POST", "/storage/v1/b?project=p", deep).body["error"]["code"] == 400);
  CHECK(driver.Send("POST", "/v1/projects/p/builds", objects).status == 400);
  CHECK(driver.Send("POST", "/compute/v1/projects/p/global/firewalls", deep).status == 400);
  // 100 levels are still a body (this one a wrong one: the schema says why).
  auto hundred = driver.Send("POST", kTpu + "/nodes?nodeId=deep", "{\"labels\":" + NestedArrays(99) + "}");
  CHECK(hundred.status == 400);
  CHECK(hundred.body["error"]["message"].get<std::string>().find("Invalid value at 'labels'") != std::string::npos);

  // Nothing it holds was lost, and what it logged reads back: the body by its size.
  CHECK(driver.Send("POST", "/storage/v1/b?project=p", json{{"name", "kept"}}).status == 200);
  CHECK(driver.Send("GET", "/storage/v1/b/kept").status == 200);
  auto upload = driver.Send("POST", "/upload/storage/v1/b/kept/o?uploadType=resumable&name=o", deep);
  CHECK(upload.status == 400);
  CHECK(upload.body["error"]["errors"][0]["reason"] == "parseError");
  auto log = driver.Send("GET", "/_emulator/requests", nullptr, false);
  REQUIRE(log.status == 200);
  CHECK(log.body["requests"][0]["body"] == "<140000 bytes>");
  CHECK(driver.Send("GET", "/_emulator/state", nullptr, false).body["buckets"].contains("kept"));
}

TEST_CASE("a body of more than a million values is 400, before 16 bytes and more are spent on each") {
  Driver driver;
  std::string zeros = "{\"labels\": [0";
  while (zeros.size() < 9 * 1024 * 1024) zeros += ",0";  // ~4.7 million values in 9 MiB
  zeros += "]}";
  auto reply = driver.Send("POST", kTpu + "/nodes?nodeId=n", zeros);
  CHECK(reply.status == 400);
  CHECK(reply.body["error"]["message"] ==
        "Invalid JSON payload received. The request body holds more than 1000000 values.");
}

TEST_CASE("values of 300,000 characters where a pattern checks them are refused, not a stack overflow") {
  // libstdc++'s std::regex recursed once per character of a `+`: each of these killed the emulator.
  Driver driver;
  const std::string huge(300'000, 'A');
  const int bucket =
      driver.Send("POST", "/storage/v1/b?project=p", json{{"name", "abc-bucket"}, {"location", huge}}).status;
  CHECK((bucket == 200 || bucket == 400));
  auto version = driver.Send("POST", "/v1/projects/p/locations/us-east5-b/clusters",
                             json{{"cluster", {{"name", "c"}, {"initialClusterVersion", std::string(300'000, '1')}}}});
  CHECK(version.status == 400);
  auto role = driver.Send("POST", "/v1/projects/p:setIamPolicy",
                          json{{"policy", {{"bindings", {{{"role", "projects/" + huge + "/roles/x"}}}}}}});
  CHECK(role.status == 400);
  auto range = driver.Send("POST", "/compute/v1/projects/p/global/firewalls",
                           json{{"name", "fw"},
                                {"network", "global/networks/default"},
                                {"sourceRanges", {std::string(300'000, 'a') + ":"}},
                                {"allowed", {{{"IPProtocol", "tcp"}}}}});
  CHECK(range.status == 400);
  auto tag = driver.Send("POST", "/v1/projects/p/builds",
                         json{{"steps", {{{"name", "gcr.io/cloud-builders/docker"}, {"args", {"build"}}}}},
                              {"images", {"us-east5-docker.pkg.dev/p/repo/" + std::string(300'000, 'a')}}});
  CHECK(tag.status == 200);  // the tag is read when the build pushes it
  driver.Advance(std::chrono::minutes(10));
  CHECK(driver.Send("GET", "/v1/projects/p/builds").status == 200);
}

// GET /_emulator/requests as it goes over the wire.
std::string LogAnswer(Driver& driver) {
  ApiRequest request;
  request.method = "GET";
  request.path = "/_emulator/requests";
  auto response = driver.emulator().Handle(request);
  REQUIRE(response.status == 200);
  return response.body;
}

TEST_CASE("the request log answers in proportion to what it keeps, within its bounds") {
  EmulatorConfig config;
  config.request_log_bytes = 4 * 1024 * 1024;
  Driver driver(config);
  // ~600 KB nested 100 deep, as deep as a body may be: pretty-printed, each level indents every
  // line below it, and the log answered 60 MB for it (5 GB for the issue's 50,000 levels).
  std::string labels;
  while (labels.size() < 600'000) labels += (labels.empty() ? "" : ",") + NestedArrays(98);
  const std::string body = "{\"labels\": [" + labels + "]}";
  CHECK(driver.Send("POST", kTpu + "/nodes?nodeId=n", body).status == 400);
  const std::string answer = LogAnswer(driver);
  CHECK(answer.size() < body.size() + 1024);
  auto log = json::parse(answer);
  REQUIRE(log["requests"].size() == 1);
  CHECK(log["requests"][0]["body"]["labels"].size() == 600'000 / 197 + 1);

  // A JSON body over 1 MiB is logged by its size.
  const std::string large = "{\"labels\": {\"a\": \"" + std::string(1536 * 1024, 'x') + "\"}}";
  CHECK(driver.Send("POST", kTpu + "/nodes?nodeId=n", large).status == 400);
  CHECK(driver.emulator().Requests()["requests"][1]["body"] == "<" + std::to_string(large.size()) + " bytes>");

  // Past 4 MiB in all, the oldest entries go.
  for (int i = 0; i < 10; ++i) CHECK(driver.Send("POST", kTpu + "/nodes?nodeId=n", body).status == 400);
  const std::string kept = LogAnswer(driver);
  CHECK(kept.size() <= config.request_log_bytes + 1024);
  auto entries = json::parse(kept)["requests"];
  CHECK(entries.size() == 6);  // 6 of ~620 KB fit in 4 MiB
  CHECK(entries.back()["seq"] == 12);
}

TEST_CASE("bytes that are not UTF-8 in a URL are refused, elsewhere shown as U+FFFD; the log keeps answering") {
  char dir_template[] = "/tmp/tputrain-emulator-utf8-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  EmulatorConfig config;
  config.state_file = std::string(dir_template) + "/state.json";
  Driver driver(config);
  REQUIRE(driver.Send("POST", "/storage/v1/b?project=p", json{{"name", "bkt"}}).status == 200);
  // A path (%FF decoded), a query value, a form body's key (httplib reads it as a parameter).
  auto path = driver.Send("GET", "/storage/v1/b/\xff");
  CHECK(path.status == 400);
  CHECK(path.body["error"]["errors"][0]["reason"] == "invalid");
  CHECK(driver.Send("GET", kTpu + "/nodes?pageToken=\xc3(").body["error"]["status"] == "INVALID_ARGUMENT");
  CHECK(driver.Send("POST", "/storage/v1/b?project=p", "{\"name\": \"\xff\"}").status == 400);
  // A header goes where the API puts it: the object's contentType.
  ApiRequest upload;
  upload.method = "POST";
  upload.path = "/upload/storage/v1/b/bkt/o";
  upload.query = {{"uploadType", "media"}, {"name", "o"}};
  upload.headers = {{"authorization", "Bearer t"}, {"content-type", "text/\xff"}};
  upload.body = "bytes";
  auto stored = driver.emulator().Handle(upload);
  CHECK(stored.status == 200);
  CHECK(json::parse(stored.body)["contentType"] == "text/\xef\xbf\xbd");
  ApiRequest method;
  method.method = "G\xffT";
  method.path = "/storage/v1/b";
  method.headers = {{"authorization", "Bearer t"}};
  CHECK(driver.emulator().Handle(method).status == 404);

  // Every one of them logged, and the log (and the state, and its file) still answer.
  auto log = driver.Send("GET", "/_emulator/requests", nullptr, false);
  REQUIRE(log.status == 200);
  CHECK(log.body["requests"].size() == 6);
  CHECK(log.body["requests"][5]["method"] == "G\xef\xbf\xbdT");
  CHECK(driver.Send("GET", "/_emulator/state", nullptr, false).status == 200);
  Driver restarted(config);
  CHECK(restarted.Send("GET", "/storage/v1/b/bkt/o/o").body["contentType"] == "text/\xef\xbf\xbd");
  std::filesystem::remove_all(dir_template);
}

TEST_CASE("a batch part whose path is 64 KiB long is 414, not a stack overflow in the route's regex") {
  Driver driver;
  auto batch = [&](size_t length) {
    ApiRequest request;
    request.method = "POST";
    request.path = "/batch/compute/v1";
    request.headers = {{"authorization", "Bearer t"}, {"content-type", "multipart/mixed; boundary=x"}};
    request.body = "--x\r\nContent-Type: application/http\r\n\r\nGET /compute/v1/projects/p/global/firewalls/" +
                   std::string(length, 'a') + " HTTP/1.1\r\n\r\n--x--";
    return driver.emulator().Handle(request);
  };
  auto long_path = batch(64 * 1024);
  REQUIRE(long_path.status == 200);  // the batch; its part says 414
  CHECK(long_path.body.find("HTTP/1.1 414") != std::string::npos);
  auto fits = batch(1024);
  CHECK(fits.body.find("HTTP/1.1 404") != std::string::npos);
  CHECK(driver.Send("GET", "/storage/v1/b/" + std::string(9000, 'b')).status == 414);
}

}  // namespace
}  // namespace tputrain::emulator

namespace tputrain::emulator {
namespace {

struct StateDir {
  std::string path;
  StateDir() {
    char dir[] = "/tmp/tputrain-emulator-state-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    path = dir;
  }
  ~StateDir() { std::filesystem::remove_all(path); }
  std::string Write(const std::string& text) const {
    const std::string file = path + "/state.json";
    std::ofstream(file) << text;
    return file;
  }
};

}  // namespace

// A state file the emulator did not write (another program's JSON, a hand edit) once loaded fine
// and answered 500 to the first request that read the section it broke.
TEST_CASE("a state file of another shape is refused at start, naming what is wrong") {
  StateDir dir;
  for (const auto& [text, problem] : std::vector<std::pair<std::string, std::string>>{
           {"[]", "not a JSON object"},
           {R"({"clusters": []})", "clusters is not an object of resources"},
           {R"({"tpuNodes": {"projects/p/locations/z/nodes/n": "READY"}})",
            "tpuNodes[\"projects/p/locations/z/nodes/n\"] is not a resource (an object)"},
           {R"({"nextId": "7"})", "nextId is not a count"},
           {R"({"capacity": 8})", "capacity is not an object"}}) {
    const std::string file = dir.Write(text);
    auto loaded = LoadWorld(file);
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error().message == "--state-file " + file + ": not an emulator state file (" + problem + ")");
    CHECK(core::IsUsageError(loaded.error()));
  }
  // What the emulator writes, and what it adds later, loads.
  auto kept = LoadWorld(dir.Write(R"({"clusters": {}, "repositories": {"r": {"format": "DOCKER"}},
                                     "capacity": {"us-east5-a/v6e": 8}, "nextId": 3, "serviceStates": {}})"));
  REQUIRE(kept);
  CHECK((*kept)["tpuNodes"].is_object());
}

TEST_CASE("a state file past its bound is refused unread") {
  StateDir dir;
  const std::string file = dir.path + "/state.json";
  // 300 MB, sparse: nothing to read but its size.
  std::filesystem::resize_file(dir.Write(""), 300'000'000);
  auto loaded = LoadWorld(file);
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().message == "--state-file: " + file + " is larger than 128 MiB");
}

}  // namespace tputrain::emulator
