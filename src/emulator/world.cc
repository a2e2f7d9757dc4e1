#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "tputrain/core/file.h"
#include "tputrain/core/json.h"
#include "tputrain/emulator/handlers.h"
#include "tputrain/emulator/request_limits.h"

namespace tputrain::emulator {

nlohmann::json NewWorld() {
  nlohmann::json world = nlohmann::json::object();
  for (const char* section :
       {"clusters", "containerOperations", "tpuNodes", "tpuOperations", "queuedResources", "buckets", "objects",
        "serviceAccounts", "policies", "builds", "buildOperations", "dockerImages", "uploads", "firewalls",
        "computeOperations", "reservations", "resourcePolicies"}) {
    world[section] = nlohmann::json::object();
  }
  world["nextId"] = 1;
  return world;
}

namespace {

// The sections that hold resources by name, each one a JSON object: NewWorld's and those made on
// first use.
bool IsResourceSection(const std::string& key) {
  static const std::set<std::string> kMadeLater = {"repositories", "artifactOperations", "serviceOperations"};
  return kMadeLater.count(key) != 0 || (NewWorld().contains(key) && key != "nextId");
}

// Why `world` is not of the shape the emulator writes, or "" when it is: a section that is not an
// object of resources would answer every later request that reads it with a 500.
std::string ShapeProblem(const nlohmann::json& world) {
  if (!world.is_object()) return "not a JSON object";
  for (const auto& [key, value] : world.items()) {
    if (key == "nextId" || key == "nextTpuHost") {
      if (!value.is_number_integer() || value.get<int64_t>() < 0) return key + " is not a count";
    } else if (key == "capacity" || key == "serviceStates") {
      if (!value.is_object()) return key + " is not an object";
    } else if (IsResourceSection(key)) {
      if (!value.is_object()) return key + " is not an object of resources";
      for (const auto& [name, resource] : value.items()) {
        if (!resource.is_object()) return key + "[\"" + name.substr(0, 100) + "\"] is not a resource (an object)";
      }
    }
  }
  return "";
}

}  // namespace

core::Result<nlohmann::json> LoadWorld(const std::string& path) {
  // A missing file is a new world.
  auto text = core::ReadFile(path, "--state-file", kMaxStateFileBytes);
  if (!text && core::IsFileNotFound(text.error())) return NewWorld();
  if (!text) return core::Fail(text.error());
  // Resources are as deep as their schemas, which the request depth bounds; 256 levels is well
  // past both.
  auto parsed = core::ParseJson(*text, "--state-file " + path, {.max_bytes = kMaxStateFileBytes});
  if (!parsed) return core::Fail(parsed.error());
  auto world = std::move(*parsed);
  if (const std::string problem = ShapeProblem(world); !problem.empty()) {
    return core::Fail(core::Error::Usage("--state-file " + path + ": not an emulator state file (" + problem + ")"));
  }
  auto fresh = NewWorld();
  for (const auto& [key, value] : fresh.items()) {
    if (!world.contains(key)) world[key] = value;
  }
  return world;
}

core::Status SaveWorld(const nlohmann::json& world, const std::string& path) {
  // Write a sibling file, flush it to disk, then rename: a reader or a crash never sees half a file.
  std::string temp = path + ".tmp." + std::to_string(getpid());
  std::string text = world.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return core::Fail(core::Error::Internal("cannot write " + temp));
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n <= 0) {
      close(fd);
      unlink(temp.c_str());
      return core::Fail(core::Error::Internal("cannot write " + temp));
    }
    written += static_cast<size_t>(n);
  }
  fsync(fd);
  close(fd);
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    unlink(temp.c_str());
    return core::Fail(core::Error::Internal("cannot rename " + temp + " to " + path));
  }
  return {};
}

int64_t NextId(nlohmann::json& world) {
  int64_t id = world.value("nextId", int64_t{1});
  world["nextId"] = id + 1;
  return id;
}

std::string NewOperationId(nlohmann::json& world, int64_t now_ms) {
  char suffix[16];
  std::snprintf(suffix, sizeof(suffix), "%08llx",
                static_cast<unsigned long long>(NextId(world) * 2654435761ULL % 0xffffffffULL));
  return "operation-" + std::to_string(now_ms) + "-" + suffix;
}

std::optional<nlohmann::json> Call::Body(std::string_view api, std::string_view schema, ErrorShape shape,
                                         ApiResponse& error) const {
  std::string_view text = request.body;
  auto body = ParseRequestJson(text.empty() ? std::string_view("{}") : text);
  if (!body) {
    error = ErrorFor(shape, core::ErrorKind::kInvalidArgument, body.error().message);
    return std::nullopt;
  }
  if (auto violation = schemas.Validate(api, schema, *body, method_id)) {
    error = ErrorFor(shape, core::ErrorKind::kInvalidArgument, violation->description,
                     nlohmann::json::array({BadRequestDetail(violation->field, violation->description)}));
    return std::nullopt;
  }
  return std::move(*body);
}

}  // namespace tputrain::emulator
