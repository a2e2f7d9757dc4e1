// Cloud Build cloudbuild/v1 builds, in the global (projects/{p}/builds) and the regional
// (projects/{p}/locations/{l}/builds) forms: create (a long-running operation whose metadata
// carries the Build), get, list, cancel, and the operations. Nothing is built: the source is
// checked as Cloud Build would fetch it (a tar.gz object in the emulator's storage, within
// bounds) and the build advances as cloudbuild_run.cc says.
#include <algorithm>
#include <set>

#include "cloudbuild_build.h"
#include "tputrain/archive/tar_gz.h"
#include "tputrain/core/base64.h"
#include "tputrain/core/file.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/emulator/handlers.h"

namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

constexpr char kBuildType[] = "type.googleapis.com/google.devtools.cloudbuild.v1.Build";
constexpr char kMetadataType[] = "type.googleapis.com/google.devtools.cloudbuild.v1.BuildOperationMetadata";
// A build context the emulator is willing to list: Cloud Build's own limits are larger, but the
// emulator holds everything in memory.
constexpr uint64_t kMaxContextBytes = 512 * core::kMiB;
constexpr size_t kMaxContextEntries = 100000;

std::string Location(const Call& call) {
  return call.method_id.find(".locations.") != std::string::npos ? call.args[1] : "global";
}

uint64_t Mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A version-4-shaped UUID, deterministic in the emulator's id counter and clock.
std::string NewUuid(json& world, int64_t now_ms) {
  uint64_t high = Mix(static_cast<uint64_t>(now_ms) ^ (static_cast<uint64_t>(NextId(world)) << 40));
  uint64_t low = Mix(high);
  high = (high & ~0xf000ULL) | 0x4000ULL;
  low = (low & ~(0xcULL << 60)) | (0x8ULL << 60);
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(high >> 32),
                static_cast<unsigned>((high >> 16) & 0xffff), static_cast<unsigned>(high & 0xffff),
                static_cast<unsigned>(low >> 48), static_cast<unsigned long long>(low & 0xffffffffffffULL));
  return text;
}

// "a/./b/../c" -> "a/c"; leading "/" and "./" dropped.
std::string NormalPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "/") + part;
  return out;
}

bool IsDockerBuilder(const std::string& image) {
  std::string name = image.substr(0, image.find('@'));
  auto slash = name.rfind('/');
  if (auto colon = name.find(':', slash == std::string::npos ? 0 : slash); colon != std::string::npos)
    name.resize(colon);
  return name.substr(slash == std::string::npos ? 0 : slash + 1) == "docker";
}

// For a `docker build` step: where its Dockerfile is (absolute, as docker reports it), whether
// the context holds it, and the tags it builds. null for any other step.
json DockerBuildCheck(const json& step, const std::set<std::string>& files) {
  const json args = step.value("args", json::array());
  if (!IsDockerBuilder(step.value("name", "")) || step.contains("entrypoint") || args.empty() || args[0] != "build") {
    return nullptr;
  }
  static const std::set<std::string> kValued = {"-f",
                                                "--file",
                                                "-t",
                                                "--tag",
                                                "--network",
                                                "--build-arg",
                                                "--cache-from",
                                                "--label",
                                                "--target",
                                                "--platform",
                                                "--progress",
                                                "--secret",
                                                "--ssh",
                                                "--iidfile",
                                                "--add-host",
                                                "-m",
                                                "--memory",
                                                "--shm-size",
                                                "--ulimit",
                                                "-c",
                                                "--cpu-shares",
                                                "--cpuset-cpus",
                                                "--cpu-period",
                                                "--cpu-quota",
                                                "--isolation",
                                                "--security-opt",
                                                "-o",
                                                "--output",
                                                "--cache-to",
                                                "--build-context",
                                                "--memory-swap",
                                                "--annotation",
                                                "--metadata-file"};
  std::string file, context = ".";
  json tags = json::array();
  for (size_t i = 1; i < args.size(); ++i) {
    std::string arg = args[i].is_string() ? args[i].get<std::string>() : "";
    std::string flag = arg, value;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else if (kValued.count(arg) && i + 1 < args.size() && args[i + 1].is_string()) {
      value = args[++i].get<std::string>();
    } else if (arg.rfind("-", 0) == 0) {
      continue;  // a boolean flag (--no-cache, --pull, -q)
    } else {
      context = arg;
      continue;
    }
    if (flag == "-f" || flag == "--file") file = value;
    if (flag == "-t" || flag == "--tag") tags.push_back(value);
  }
  const std::string dir = step.value("dir", "");
  std::string path;
  if (!file.empty()) {
    path = file[0] == '/' ? file : "/workspace/" + dir + "/" + file;
  } else {
    path = context[0] == '/' ? context + "/Dockerfile" : "/workspace/" + dir + "/" + context + "/Dockerfile";
  }
  path = "/" + NormalPath(path);
  bool found = true;  // a context from a URL or stdin is not checked
  if (context != "-" && context.find("://") == std::string::npos) {
    found = path.rfind("/workspace/", 0) == 0 && files.count(path.substr(11)) > 0;
  }
  return {{"dockerfile", path}, {"found", found}, {"tags", tags}};
}

std::optional<json> FindBuild(Call& call, const std::string& id) {
  auto& builds = call.world["builds"];
  auto it = builds.find(id);
  if (it == builds.end() || it->value("projectId", "") != call.args[0] ||
      it->value("_location", "") != Location(call)) {
    return std::nullopt;
  }
  return *it;
}

ApiResponse NotFound() { return Aip193Error(ErrorKind::kNotFound, "Requested entity was not found."); }

json OperationJson(const json& build) {
  const bool done = cloudbuild::IsTerminal(build);
  json op = {{"name", build["_operation"]},
             {"metadata", {{"@type", kMetadataType}, {"build", Public(build)}}},
             {"done", done}};
  if (!done) return op;
  const std::string status = build["status"];
  if (status == "SUCCESS") {
    op["response"] = Public(build);
    op["response"]["@type"] = kBuildType;
  } else if (status == "CANCELLED") {
    op["error"] = {{"code", RpcCodeFor(ErrorKind::kCancelled)}, {"message", "Build was cancelled"}};
  } else {
    op["error"] = {{"code", 2}, {"message", "Build failed; check build logs for details"}};
  }
  return op;
}

struct Source {
  std::string bytes;
  json provenance;  // SourceProvenance
  json context = {{"files", 0}, {"bytes", 0}};
  std::set<std::string> files;
};

// Resolves source.storageSource as Cloud Build fetches it; an error reply when it cannot.
std::optional<ApiResponse> ResolveSource(const Call& call, const json& build, Source& out) {
  if (!build.contains("source")) return std::nullopt;
  const json& source = build["source"];
  if (!source.contains("storageSource") || source.size() != 1) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "invalid build: the tputrain emulator fetches source.storageSource only (a tar.gz object in "
                       "its Cloud Storage)");
  }
  const json& storage = source["storageSource"];
  const std::string bucket = storage.value("bucket", ""), object = storage.value("object", "");
  const std::string generation = storage.value("generation", "");
  if (bucket.empty() || object.empty()) {
    return Aip193Error(ErrorKind::kInvalidArgument, "invalid build: source.storageSource needs a bucket and an object");
  }
  const json* found = FindStoredObject(call.world, bucket, object, generation);
  if (found == nullptr) {
    return Aip193Error(ErrorKind::kInvalidArgument, "could not resolve source: googleapi: Error 404: No such object: " +
                                                        bucket + "/" + object + ", notFound");
  }
  out.bytes = ObjectBytes(*found);
  auto entries = archive::ListTarGz(out.bytes, kMaxContextBytes, kMaxContextEntries);
  if (!entries) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "invalid build: source gs://" + bucket + "/" + object +
                           " is not a usable tar.gz build context: " + entries.error().message);
  }
  int64_t files = 0, bytes = 0;
  for (const auto& entry : *entries) {
    if (!entry.regular_file) continue;
    out.files.insert(NormalPath(entry.path));
    ++files;
    bytes += static_cast<int64_t>(entry.size);
  }
  out.context = {{"files", files}, {"bytes", bytes}};
  out.provenance = {{"resolvedStorageSource",
                     {{"bucket", bucket}, {"object", object}, {"generation", found->value("generation", "")}}}};
  return std::nullopt;
}

// Where the log goes: logsBucket ("gs://bucket[/dir]"), by default the project's Google-owned
// gs://{projectNumber}.cloudbuild-logs.googleusercontent.com, which the emulator creates.
std::optional<ApiResponse> PlaceLog(Call& call, json& build) {
  const std::string logging = build.value("options", json::object()).value("logging", "");
  if (logging == "NONE" || logging == "CLOUD_LOGGING_ONLY") return std::nullopt;
  const std::string number = std::to_string(ProjectNumber(call.args[0]));
  std::string logs = build.value("logsBucket", "");
  if (logs.empty()) {
    logs = "gs://" + number + ".cloudbuild-logs.googleusercontent.com";
    const std::string name = logs.substr(5);
    if (!call.world["buckets"].contains(name)) {
      StoreBucket(call.world, {{"name", name}, {"location", "US"}}, "google-cloudbuild-logs", call.now_ms);
    }
    build["logsBucket"] = logs;
  }
  if (logs.rfind("gs://", 0) != 0) {
    return Aip193Error(ErrorKind::kInvalidArgument, "invalid logsBucket \"" + logs + "\": expected gs://BUCKET[/DIR]");
  }
  std::string rest = logs.substr(5);
  const std::string bucket = rest.substr(0, rest.find('/'));
  std::string dir = rest.find('/') == std::string::npos ? "" : rest.substr(rest.find('/') + 1);
  if (!dir.empty() && dir.back() != '/') dir += '/';
  if (!call.world["buckets"].contains(bucket)) {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "invalid logsBucket \"" + logs + "\": bucket " + bucket + " does not exist");
  }
  build["_log"] = {{"bucket", bucket}, {"object", dir + "log-" + build["id"].get<std::string>() + ".txt"}};
  return std::nullopt;
}

ApiResponse CreateBuild(Call& call) {
  ApiResponse error;
  auto body = call.Body("cloudbuild", "Build", ErrorShape::kAip193, error);
  if (!body) return error;
  const std::string project = call.args[0], location = Location(call);
  if (location != "global" && !core::IsRegion(location)) {
    return Aip193Error(ErrorKind::kInvalidArgument, "Invalid location \"" + location +
                                                        "\": builds run in \"global\" or "
                                                        "in a region such as "
                                                        "us-east5.");
  }
  Source source;
  if (auto refused = ResolveSource(call, *body, source)) return *refused;
  json build = *body;
  const std::string id = NewUuid(call.world, call.now_ms);
  build["id"] = id;
  build["name"] = "projects/" + project + "/locations/" + location + "/builds/" + id;
  build["projectId"] = project;
  build["status"] = "QUEUED";
  build["createTime"] = Rfc3339(call.now_ms);
  if (!build.contains("timeout")) build["timeout"] = "600s";
  if (!build.contains("queueTtl")) build["queueTtl"] = "3600s";
  json checks = json::array();
  if (build.contains("steps")) {
    for (auto& step : build["steps"]) {
      step["status"] = "QUEUED";
      checks.push_back(DockerBuildCheck(step, source.files));
    }
  }
  if (!source.provenance.is_null()) build["sourceProvenance"] = source.provenance;
  if (auto refused = PlaceLog(call, build)) return *refused;
  const std::string number = std::to_string(ProjectNumber(project));
  build["logUrl"] =
      location == "global"
          ? "https://console.cloud.google.com/cloud-build/builds/" + id + "?project=" + number
          : "https://console.cloud.google.com/cloud-build/builds;region=" + location + "/" + id + "?project=" + number;
  // The global path's operations have their own name form; a location's are under it.
  build["_operation"] =
      call.method_id.find(".locations.") == std::string::npos
          ? "operations/build/" + project + "/" + core::EncodeBase64(id, core::Base64Alphabet::kUrlSafe)
          : "projects/" + project + "/locations/" + location + "/operations/" + NewUuid(call.world, call.now_ms);
  build["_location"] = location;
  build["_created"] = call.now_ms;
  int64_t latency = call.config.LatencyOf(call.method_id).count();
  if (call.op_fault == FaultAction::kStuck) {
    latency = call.config.stuck_for.count() > 0 ? call.config.stuck_for.count() : -1;
  }
  build["_latency"] = latency;
  build["_phase"] = 0;
  cloudbuild::ScheduleNextPhase(build);
  build["_checks"] = checks;
  build["_context"] = source.context;
  build["_sourceBytes"] = static_cast<int64_t>(source.bytes.size());
  build["_digest"] = "sha256:" + cloudbuild::Sha256Hex(source.bytes);
  call.world["builds"][id] = build;
  call.world["buildOperations"][build["_operation"].get<std::string>()] = id;
  call.mutated = true;
  return JsonReply(OperationJson(build));
}

ApiResponse GetBuild(Call& call) {
  auto build = FindBuild(call, call.args.back());
  if (!build) return NotFound();
  return JsonReply(Public(*build));
}

ApiResponse ListBuilds(Call& call) {
  std::vector<json> listed;
  for (const auto& [id, build] : call.world["builds"].items()) {
    if (build.value("projectId", "") == call.args[0] && build.value("_location", "") == Location(call)) {
      listed.push_back(build);
    }
  }
  std::sort(listed.begin(), listed.end(), [](const json& a, const json& b) {
    int64_t ta = a.value("_created", int64_t{0}), tb = b.value("_created", int64_t{0});
    return ta != tb ? ta > tb : a["id"] > b["id"];  // newest first
  });
  // `filter` (e.g. gcloud's status="WORKING") is accepted and not applied.
  size_t offset = 0, page = 50;
  if (auto token = call.request.Param("pageToken"); token && !token->empty()) offset = std::stoul(*token);
  if (auto size = call.request.Param("pageSize"); size && !size->empty())
    page = std::clamp<size_t>(std::stoul(*size), 1, 1000);
  json builds = json::array();
  for (size_t i = offset; i < listed.size() && i < offset + page; ++i) builds.push_back(Public(listed[i]));
  json reply = json::object();
  if (!builds.empty()) reply["builds"] = builds;
  if (offset + page < listed.size()) reply["nextPageToken"] = std::to_string(offset + page);
  return JsonReply(reply);
}

ApiResponse CancelBuild(Call& call) {
  const std::string id = call.args.back();
  if (!FindBuild(call, id)) return NotFound();
  json& build = call.world["builds"][id];
  if (!cloudbuild::IsTerminal(build)) {
    cloudbuild::AppendLog(call.world, build, "tputrain emulator: build cancelled\n", call.now_ms);
    cloudbuild::Finish(build, "CANCELLED", "", "", call.now_ms);
    call.mutated = true;
  }
  return JsonReply(Public(build));
}

ApiResponse GetOperation(Call& call) {
  std::string name = call.args.size() == 2
                         ? "operations/build/" + call.args[0] + "/" + call.args[1]
                         : "projects/" + call.args[0] + "/locations/" + call.args[1] + "/operations/" + call.args[2];
  const json& operations = call.world["buildOperations"];
  auto it = operations.find(name);
  if (it == operations.end()) return Aip193Error(ErrorKind::kNotFound, "Operation not found: " + name);
  return JsonReply(OperationJson(call.world["builds"][it->get<std::string>()]));
}

}  // namespace

std::vector<Route> CloudBuildRoutes() {
  static const std::string global = "^/v1/projects/([^/:]+)/builds";
  static const std::string regional = "^/v1/projects/([^/:]+)/locations/([^/:]+)/builds";
  static const std::string uuid = "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})";
  return {
      {"POST", global + "$", "cloudbuild.projects.builds.create", CreateBuild, ErrorShape::kAip193, true},
      {"GET", global + "$", "cloudbuild.projects.builds.list", ListBuilds},
      {"GET", global + "/([^/:]+)$", "cloudbuild.projects.builds.get", GetBuild},
      {"POST", global + "/([^/:]+):cancel$", "cloudbuild.projects.builds.cancel", CancelBuild},
      {"POST", regional + "$", "cloudbuild.projects.locations.builds.create", CreateBuild, ErrorShape::kAip193, true},
      {"GET", regional + "$", "cloudbuild.projects.locations.builds.list", ListBuilds},
      {"GET", regional + "/([^/:]+)$", "cloudbuild.projects.locations.builds.get", GetBuild},
      {"POST", regional + "/([^/:]+):cancel$", "cloudbuild.projects.locations.builds.cancel", CancelBuild},
      {"GET", "^/v1/operations/build/([^/]+)/([^/]+)$", "cloudbuild.operations.get", GetOperation},
      {"GET", "^/v1/projects/([^/:]+)/locations/([^/:]+)/operations/" + uuid + "$",
       "cloudbuild.projects.locations.operations.get", GetOperation},
  };
}

}  // namespace tputrain::emulator
