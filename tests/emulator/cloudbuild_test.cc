// Cloud Build, the storage upload and download forms `gcloud builds submit` uses, and the
// docker images an emulated build registers in Artifact Registry.
#include <openssl/evp.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <catch2/catch.hpp>

#include "emulator/emulator_test_util.h"
#include "tputrain/archive/tar_gz.h"

namespace tputrain::emulator {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Driver;
using namespace std::chrono_literals;

constexpr char kTag[] = "us-east5-docker.pkg.dev/p/repo/img:latest";
const std::string kBuilds = "/v1/projects/p/locations/global/builds";

struct TempDir {
  TempDir() {
    char name[] = "/tmp/tputrain-cloudbuild-test-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path path;
};

// A real build context: `files` (archive path -> content) written to disk, then tar.gz'd.
std::string Context(const std::map<std::string, std::string>& files) {
  TempDir dir;
  std::vector<archive::ContextFile> listed;
  for (const auto& [name, content] : files) {
    fs::path source = dir.path / name;
    fs::create_directories(source.parent_path());
    std::ofstream(source, std::ios::binary) << content;
    listed.push_back({name, source});
  }
  return archive::WriteTarGz(listed).value();
}

std::string Sha256Hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < length; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", digest[i]);
    hex += byte;
  }
  return hex;
}

// One request with headers and a raw body, and the raw reply (Driver parses JSON only).
ApiResponse Raw(Driver& driver, const std::string& method, const std::string& path,
                const std::multimap<std::string, std::string>& query, const std::map<std::string, std::string>& headers,
                const std::string& body = "") {
  ApiRequest request{method, path, query, headers, body};
  request.headers["authorization"] = "Bearer any-token";
  return driver.emulator().Handle(request);
}

std::string Multipart(const json& metadata, const std::string& media) {
  return "--b0und\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" + metadata.dump() +
         "\r\n--b0und\r\nContent-Type: application/gzip\r\nContent-Transfer-Encoding: binary\r\n\r\n" + media +
         "\r\n--b0und--";
}

// The uploaded object's JSON.
json UploadMultipart(Driver& driver, const std::string& bucket, const std::string& name, const std::string& bytes) {
  auto reply = Raw(driver, "POST", "/upload/storage/v1/b/" + bucket + "/o", {{"uploadType", "multipart"}},
                   {{"content-type", "multipart/related; boundary=b0und"}}, Multipart({{"name", name}}, bytes));
  INFO(reply.body);
  REQUIRE(reply.status == 200);
  return json::parse(reply.body);
}

void Setup(Driver& driver) {
  REQUIRE(driver.Send("POST", "/storage/v1/b?project=p", json{{"name", "p_cloudbuild"}}).status == 200);
  REQUIRE(
      driver
          .Send("POST", "/v1/projects/p/locations/us-east5/repositories?repositoryId=repo", json{{"format", "DOCKER"}})
          .status == 200);
}

json DockerBuild(const json& source, const std::string& tag = kTag, json extra_args = json::array()) {
  json args = {"build", "--network", "cloudbuild", "--no-cache", "-t", tag};
  for (const auto& arg : extra_args) args.push_back(arg);
  args.push_back(".");
  return {{"source", {{"storageSource", source}}},
          {"steps", {{{"name", "gcr.io/cloud-builders/docker"}, {"args", args}}}},
          {"images", {tag}}};
}

// Creates a build from `bytes` uploaded as source/ctx.tgz; returns the operation.
json Submit(Driver& driver, const std::string& bytes, const std::string& tag = kTag, json extra_args = json::array()) {
  json object = UploadMultipart(driver, "p_cloudbuild", "source/ctx.tgz", bytes);
  auto op = driver.Send(
      "POST", kBuilds,
      DockerBuild({{"bucket", "p_cloudbuild"}, {"object", "source/ctx.tgz"}, {"generation", object["generation"]}}, tag,
                  extra_args));
  INFO(op.body.dump());
  REQUIRE(op.status == 200);
  return op.body;
}

std::string LogBucket() { return std::to_string(ProjectNumber("p")) + ".cloudbuild-logs.googleusercontent.com"; }

// The log as gcloud's tailer reads it: GET https://storage.googleapis.com/{bucket}/{object}.
ApiResponse ReadLog(Driver& driver, const std::string& id, size_t cursor) {
  return Raw(driver, "GET", "/" + LogBucket() + "/log-" + id + ".txt", {},
             {{"host", "storage.googleapis.com"}, {"range", "bytes=" + std::to_string(cursor) + "-"}});
}

TEST_CASE("cloud build: a multipart-uploaded context goes QUEUED, WORKING, SUCCESS and registers the image") {
  Driver driver;
  Setup(driver);
  const std::string bytes =
      Context({{"Dockerfile", "FROM python:3.12\nCOPY . /app\n"}, {"app/train.py", "print(1)\n"}});
  json op = Submit(driver, bytes);
  CHECK(op["done"] == false);
  CHECK(op["metadata"]["@type"] == "type.googleapis.com/google.devtools.cloudbuild.v1.BuildOperationMetadata");
  json build = op["metadata"]["build"];
  const std::string id = build["id"];
  CHECK(std::regex_match(id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
  CHECK(std::regex_match(op["name"].get<std::string>(),
                         std::regex("projects/p/locations/global/operations/[0-9a-f-]{36}")));
  CHECK(build["status"] == "QUEUED");
  CHECK(build["name"] == "projects/p/locations/global/builds/" + id);
  CHECK(build["projectId"] == "p");
  CHECK(build["timeout"] == "600s");
  CHECK(build["logsBucket"] == "gs://" + LogBucket());
  CHECK(build["steps"][0]["status"] == "QUEUED");
  CHECK(build["sourceProvenance"]["resolvedStorageSource"]["object"] == "source/ctx.tgz");
  CHECK(build.contains("_checks") == false);

  // gcloud's tailer: 404 until the log exists, 206 with what is new, 416 when nothing is.
  CHECK(ReadLog(driver, id, 0).status == 404);
  driver.Advance(500ms);
  CHECK(driver.Send("GET", kBuilds + "/" + id).body["status"] == "WORKING");
  auto first = ReadLog(driver, id, 0);
  REQUIRE(first.status == 206);
  CHECK(first.body.find("starting build \"" + id + "\"") != std::string::npos);
  CHECK(first.body.find("tputrain emulator: this build is emulated; no container was built. Context: 2 files") !=
        std::string::npos);
  CHECK(first.body.find("Dockerfile found") != std::string::npos);
  size_t cursor = first.body.size();
  CHECK(ReadLog(driver, id, cursor).status == 416);
  driver.Advance(500ms);
  auto steps = ReadLog(driver, id, cursor);
  REQUIRE(steps.status == 206);
  CHECK(steps.body.rfind("BUILD\n", 0) == 0);
  CHECK(steps.headers["Content-Range"] == "bytes " + std::to_string(cursor) + "-" +
                                              std::to_string(cursor + steps.body.size() - 1) + "/" +
                                              std::to_string(cursor + steps.body.size()));
  cursor += steps.body.size();
  driver.Advance(1s);
  auto rest = ReadLog(driver, id, cursor);
  REQUIRE(rest.status == 206);
  const std::string digest = "sha256:" + Sha256Hex(bytes);
  CHECK(rest.body.find("Pushing " + std::string(kTag)) != std::string::npos);
  CHECK(rest.body.find(digest) != std::string::npos);
  CHECK(rest.body.find("DONE\n") != std::string::npos);
  CHECK(ReadLog(driver, id, cursor + rest.body.size()).status == 416);

  build = driver.Send("GET", kBuilds + "/" + id).body;
  CHECK(build["status"] == "SUCCESS");
  CHECK(build.contains("startTime"));
  CHECK(build.contains("finishTime"));
  CHECK(build["steps"][0]["status"] == "SUCCESS");
  CHECK(build["results"]["images"][0]["name"] == kTag);
  CHECK(build["results"]["images"][0]["digest"] == digest);
  CHECK(build["results"]["buildStepImages"].size() == 1);
  auto done = driver.Send("GET", "/v1/" + op["name"].get<std::string>());
  CHECK(done.body["done"] == true);
  CHECK(done.body["response"]["@type"] == "type.googleapis.com/google.devtools.cloudbuild.v1.Build");
  CHECK(done.body["response"]["status"] == "SUCCESS");

  const std::string repo = "/v1/projects/p/locations/us-east5/repositories/repo";
  auto images = driver.Send("GET", repo + "/dockerImages");
  REQUIRE(images.body["dockerImages"].size() == 1);
  json image = images.body["dockerImages"][0];
  CHECK(image["name"] == "projects/p/locations/us-east5/repositories/repo/dockerImages/img@" + digest);
  CHECK(image["uri"] == "us-east5-docker.pkg.dev/p/repo/img@" + digest);
  CHECK(image["tags"] == json{"latest"});
  CHECK(image["imageSizeBytes"] == std::to_string(bytes.size()));
  CHECK(image["mediaType"] == "application/vnd.docker.distribution.manifest.v2+json");
  CHECK(driver.Send("GET", repo + "/dockerImages/img@" + digest).status == 200);
  CHECK(driver.Send("GET", repo + "/dockerImages/img:latest").body["name"] == image["name"]);
  CHECK(driver.Send("GET", repo + "/dockerImages/img:other").status == 404);

  // The log's whole object reads back through the JSON API too.
  auto whole = Raw(driver, "GET", "/storage/v1/b/" + LogBucket() + "/o/log-" + id + ".txt", {{"alt", "media"}}, {});
  CHECK(whole.status == 200);
  CHECK(whole.body.size() == cursor + rest.body.size());

  CHECK(driver.Send("DELETE", repo).status == 200);
  CHECK(
      driver
          .Send("POST", "/v1/projects/p/locations/us-east5/repositories?repositoryId=repo", json{{"format", "DOCKER"}})
          .status == 200);
  CHECK(driver.Send("GET", repo + "/dockerImages").body.contains("dockerImages") == false);
}

TEST_CASE("storage: a resumable upload in chunks, then ranged reads of the object") {
  Driver driver;
  Setup(driver);
  const std::string bytes = Context({{"Dockerfile", "FROM scratch\n"}, {"big", std::string(300000, 'x')}});
  // apitools starts at the discovery document's resumable path, with the name in the query.
  auto start = Raw(
      driver, "POST", "/resumable/upload/storage/v1/b/p_cloudbuild/o",
      {{"uploadType", "resumable"}, {"name", "source/big.tgz"}},
      {{"host", "127.0.0.1:8780"}, {"content-type", "application/json"}, {"x-upload-content-type", "application/gzip"}},
      json{{"size", std::to_string(bytes.size())}}.dump());
  REQUIRE(start.status == 200);
  std::string location = start.headers["Location"];
  REQUIRE(location.rfind("http://127.0.0.1:8780/upload/storage/v1/b/p_cloudbuild/o?uploadType=resumable&upload_id=",
                         0) == 0);
  std::string upload_id = location.substr(location.find("upload_id=") + 10);
  const size_t half = bytes.size() / 2;
  auto put = [&](size_t from, size_t to, const std::string& total) {
    return Raw(driver, "PUT", "/upload/storage/v1/b/p_cloudbuild/o",
               {{"uploadType", "resumable"}, {"upload_id", upload_id}},
               {{"content-range", "bytes " + std::to_string(from) + "-" + std::to_string(to - 1) + "/" + total}},
               bytes.substr(from, to - from));
  };
  auto partial = put(0, half, "*");
  CHECK(partial.status == 308);
  CHECK(partial.headers["Range"] == "bytes=0-" + std::to_string(half - 1));
  auto finished = put(half, bytes.size(), std::to_string(bytes.size()));
  REQUIRE(finished.status == 200);
  json object = json::parse(finished.body);
  CHECK(object["name"] == "source/big.tgz");
  CHECK(object["size"] == std::to_string(bytes.size()));
  CHECK(object["contentType"] == "application/gzip");
  CHECK(!object["generation"].get<std::string>().empty());
  CHECK(Raw(driver, "PUT", "/upload/storage/v1/b/p_cloudbuild/o", {{"upload_id", upload_id}}, {}, "x").status == 404);

  const std::string path = "/storage/v1/b/p_cloudbuild/o/source/big.tgz";
  auto whole = Raw(driver, "GET", path, {{"alt", "media"}}, {});
  CHECK(whole.status == 200);
  CHECK(whole.body == bytes);
  auto tail = Raw(driver, "GET", path, {{"alt", "media"}}, {{"range", "bytes=100-"}});
  CHECK(tail.status == 206);
  CHECK(tail.body == bytes.substr(100));
  CHECK(tail.headers["Content-Range"] ==
        "bytes 100-" + std::to_string(bytes.size() - 1) + "/" + std::to_string(bytes.size()));
  CHECK(
      Raw(driver, "GET", path, {{"alt", "media"}}, {{"range", "bytes=" + std::to_string(bytes.size()) + "-"}}).status ==
      416);
  CHECK(Raw(driver, "GET", "/download/storage/v1/b/p_cloudbuild/o/source/big.tgz",
            {{"alt", "media"}, {"generation", object["generation"]}}, {})
            .body == bytes);
  // The XML API's path form, for existing buckets only.
  CHECK(Raw(driver, "GET", "/p_cloudbuild/source/big.tgz", {}, {}).body == bytes);
  CHECK(Raw(driver, "GET", "/p_cloudbuild/source/none", {}, {}).status == 404);
  CHECK(Raw(driver, "GET", "/no-such-bucket/x", {}, {}).status == 404);
  CHECK(driver.Send("GET", "/v1/projects/p/unknown/path").body["error"]["status"] == "NOT_FOUND");

  // A build from the resumable upload, by the global path.
  auto op = driver.Send("POST", "/v1/projects/p/builds",
                        DockerBuild({{"bucket", "p_cloudbuild"}, {"object", "source/big.tgz"}}));
  REQUIRE(op.status == 200);
  const std::string name = op.body["name"];
  CHECK(name.rfind("operations/build/p/", 0) == 0);
  const std::string id = op.body["metadata"]["build"]["id"];
  CHECK(driver.Send("GET", "/v1/projects/p/builds/" + id).body["id"] == id);
  CHECK(driver.Send("GET", "/v1/projects/p/locations/us-east5/builds/" + id).status == 404);
  driver.Advance(2s);
  CHECK(driver.Send("GET", "/v1/" + name).body["response"]["status"] == "SUCCESS");
}

TEST_CASE("storage: a multipart upload as apitools writes it (quoted boundary, LF line breaks)") {
  Driver driver;
  Setup(driver);
  // Every byte of the literal but its terminating NUL: the embedded one is part of the object.
  const std::string media = std::string("binary\r\n\r\n--not-the-boundary\n\n\0tail", 35);
  const std::string body = "--===============4242==\nContent-Type: application/json\nMIME-Version: 1.0\n\n" +
                           json{{"name", "source/a.tgz"}}.dump() +
                           "\n--===============4242==\nContent-Type: application/gzip\nMIME-Version: 1.0\n"
                           "Content-Transfer-Encoding: binary\n\n" +
                           media + "\n--===============4242==--\n";
  auto reply = Raw(driver, "POST", "/upload/storage/v1/b/p_cloudbuild/o", {{"uploadType", "multipart"}},
                   {{"content-type", "multipart/related; boundary='===============4242=='"}}, body);
  INFO(reply.body);
  REQUIRE(reply.status == 200);
  CHECK(json::parse(reply.body)["contentType"] == "application/gzip");
  CHECK(Raw(driver, "GET", "/storage/v1/b/p_cloudbuild/o/source/a.tgz", {{"alt", "media"}}, {}).body == media);
}

TEST_CASE("cloud build: no Dockerfile in the context fails the build as docker does") {
  Driver driver;
  Setup(driver);
  json op = Submit(driver, Context({{"app/train.py", "print(1)\n"}}));
  const std::string id = op["metadata"]["build"]["id"];
  driver.Advance(2s);
  auto build = driver.Send("GET", kBuilds + "/" + id).body;
  CHECK(build["status"] == "FAILURE");
  CHECK(build["failureInfo"]["type"] == "USER_BUILD_STEP");
  CHECK(build["steps"][0]["status"] == "FAILURE");
  CHECK((!build.contains("results") || !build["results"].contains("images")));
  auto log = ReadLog(driver, id, 0);
  CHECK(log.body.find("Step #0: unable to prepare context: unable to evaluate symlinks in Dockerfile path: lstat "
                      "/workspace/Dockerfile: no such file or directory") != std::string::npos);
  CHECK(log.body.find("ERROR: build step 0 \"gcr.io/cloud-builders/docker\" failed") != std::string::npos);
  auto done = driver.Send("GET", "/v1/" + op["name"].get<std::string>());
  CHECK(done.body["done"] == true);
  CHECK(done.body["error"]["code"] == 2);
  CHECK(driver.Send("GET", "/v1/projects/p/locations/us-east5/repositories/repo/dockerImages")
            .body.contains("dockerImages") == false);

  // docker build -f names a Dockerfile elsewhere in the context.
  json other = Submit(driver, Context({{"docker/train.Dockerfile", "FROM scratch\n"}}), kTag,
                      json{"-f", "docker/train.Dockerfile"});
  driver.Advance(2s);
  CHECK(driver.Send("GET", kBuilds + "/" + other["metadata"]["build"]["id"].get<std::string>()).body["status"] ==
        "SUCCESS");
}

TEST_CASE("cloud build: a source that is missing or not a tar.gz is refused at create") {
  Driver driver;
  Setup(driver);
  REQUIRE(driver
              .Send("POST", "/upload/storage/v1/b/p_cloudbuild/o?uploadType=media&name=notes.txt",
                    json("just some text, not an archive"))
              .status == 200);
  auto not_tar = driver.Send("POST", kBuilds, DockerBuild({{"bucket", "p_cloudbuild"}, {"object", "notes.txt"}}));
  CHECK(not_tar.status == 400);
  CHECK(not_tar.body["error"]["status"] == "INVALID_ARGUMENT");
  CHECK(not_tar.body["error"]["message"].get<std::string>().find("not a usable tar.gz") != std::string::npos);
  auto missing = driver.Send("POST", kBuilds, DockerBuild({{"bucket", "p_cloudbuild"}, {"object", "nope.tgz"}}));
  CHECK(missing.status == 400);
  CHECK(missing.body["error"]["message"] ==
        "could not resolve source: googleapi: Error 404: No such object: p_cloudbuild/nope.tgz, notFound");
  UploadMultipart(driver, "p_cloudbuild", "ctx.tgz", Context({{"Dockerfile", "FROM scratch\n"}}));
  auto stale = driver.Send("POST", kBuilds,
                           DockerBuild({{"bucket", "p_cloudbuild"}, {"object", "ctx.tgz"}, {"generation", "1"}}));
  CHECK(stale.status == 400);
  auto unknown_field = driver.Send("POST", kBuilds, json{{"steps", json::array()}, {"stepz", 1}});
  CHECK(unknown_field.status == 400);
  CHECK(driver.Send("GET", kBuilds).body.contains("builds") == false);
}

TEST_CASE("cloud build: a tag in a repository that does not exist fails the push") {
  Driver driver;
  Setup(driver);
  const std::string tag = "us-east5-docker.pkg.dev/p/nope/img:v1";
  json op = Submit(driver, Context({{"Dockerfile", "FROM scratch\n"}}), tag);
  const std::string id = op["metadata"]["build"]["id"];
  driver.Advance(2s);
  auto build = driver.Send("GET", kBuilds + "/" + id).body;
  CHECK(build["status"] == "FAILURE");
  CHECK(build["failureInfo"]["type"] == "PUSH_FAILED");
  // Noticed in one request, the phases still keep their own times.
  CHECK(build["startTime"] < build["finishTime"]);
  CHECK(ReadLog(driver, id, 0).body.find("name unknown: Repository \"nope\" not found") != std::string::npos);
}

TEST_CASE("cloud build: cancel ends a running build; builds list newest first") {
  Driver driver;
  Setup(driver);
  json first = Submit(driver, Context({{"Dockerfile", "FROM scratch\n"}}));
  driver.Advance(10ms);
  json second = Submit(driver, Context({{"Dockerfile", "FROM scratch\n"}}));
  const std::string id = second["metadata"]["build"]["id"];
  driver.Advance(600ms);
  auto cancelled = driver.Send("POST", kBuilds + "/" + id + ":cancel", json{{"projectId", "p"}, {"id", id}});
  REQUIRE(cancelled.status == 200);
  CHECK(cancelled.body["status"] == "CANCELLED");
  driver.Advance(5s);
  CHECK(driver.Send("GET", kBuilds + "/" + id).body["status"] == "CANCELLED");
  auto op = driver.Send("GET", "/v1/" + second["name"].get<std::string>());
  CHECK(op.body["error"]["code"] == 1);
  auto listed = driver.Send("GET", kBuilds + "?filter=status%3D%22WORKING%22&pageSize=50");
  REQUIRE(listed.body["builds"].size() == 2);
  CHECK(listed.body["builds"][0]["id"] == id);
  CHECK(listed.body["builds"][1]["id"] == first["metadata"]["build"]["id"]);
  CHECK(listed.body["builds"][1]["status"] == "SUCCESS");
  // Cancelling a finished build leaves it as it is.
  CHECK(driver.Send("POST", kBuilds + "/" + id + ":cancel", json::object()).body["status"] == "CANCELLED");
  CHECK(driver.Send("POST", kBuilds + "/no-such-build:cancel", json::object()).status == 404);
}

}  // namespace
}  // namespace tputrain::emulator
