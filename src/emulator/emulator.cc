#include "tputrain/emulator/emulator.h"

#include <iostream>
#include <limits>

#include "capacity.h"
#include "compute_batch.h"
#include "operations.h"
#include "tputrain/core/json.h"
#include "tputrain/core/utf8.h"
#include "tputrain/emulator/request_limits.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;

std::vector<Route> AllRoutes() {
  std::vector<Route> routes;
  // Artifact Registry and Cloud Build first: their operations share GKE's path, told apart by
  // their ids ("ar-...", a UUID). The XML API's path-style download matches nearly any path: last.
  for (auto&& group : {ArtifactRegistryRoutes(), CloudBuildRoutes(), ContainerRoutes(), TpuRoutes(),
                       TpuQueuedResourceRoutes(), TpuNodeUpdateRoutes(), StorageRoutes(), StorageUploadRoutes(),
                       IamRoutes(), ServiceUsageRoutes(), BillingCatalogRoutes(), ComputeRoutes(),
                       ComputeReservationRoutes(), ComputeResourcePolicyRoutes(), StorageXmlRoutes()}) {
    routes.insert(routes.end(), group.begin(), group.end());
  }
  return routes;
}

json StripPrivate(const json& value) {
  if (value.is_array()) {
    json out = json::array();
    for (const auto& item : value) out.push_back(StripPrivate(item));
    return out;
  }
  if (!value.is_object()) return value;
  json out = json::object();
  for (const auto& [key, item] : value.items()) {
    if (!key.empty() && key[0] == '_') continue;
    out[key] = StripPrivate(item);
  }
  return out;
}

bool IsStoragePath(std::string_view path) {
  return path.rfind("/storage/", 0) == 0 || path.rfind("/upload/storage/", 0) == 0 ||
         path.rfind("/resumable/upload/storage/", 0) == 0 || path.rfind("/download/storage/", 0) == 0;
}

ErrorShape ErrorShapeOf(std::string_view path) {
  if (IsStoragePath(path)) return ErrorShape::kStorageLegacy;
  return path.rfind("/compute/", 0) == 0 ? ErrorShape::kComputeLegacy : ErrorShape::kAip193;
}

std::optional<std::string> BearerToken(const ApiRequest& request) {
  auto it = request.headers.find("authorization");
  if (it == request.headers.end()) return std::nullopt;
  std::string_view value = it->second;
  if (value.size() <= 7 || (value.substr(0, 7) != "Bearer " && value.substr(0, 7) != "bearer ")) return std::nullopt;
  return std::string(value.substr(7));
}

ApiResponse InjectedError(const FaultRule& rule, ErrorShape shape) {
  std::string status(core::KindName(rule.error));
  std::string message = status + ": injected by the emulator (--faults " + rule.text + ")";
  if (rule.error == core::ErrorKind::kResourceExhausted) {
    message =
        "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' (injected by the emulator: "
        "--faults " +
        rule.text + ")";
  }
  ApiResponse response = ErrorFor(shape, rule.error, message);
  if (rule.http_status != 0 && rule.http_status != response.status) {
    // An explicit HTTP status wins over the kind's usual one; keep the JSON code in step.
    auto body = core::ParseJson(response.body, "the emulator's own error");
    if (body) {
      (*body)["error"]["code"] = rule.http_status;
      response = JsonReply(*body, rule.http_status);
    }
  }
  return response;
}

// Of a body, the log keeps at most this much as JSON; a larger one by its size alone.
constexpr size_t kMaxLoggedBodyBytes = core::kMiB;

// A JSON body as the emulator would read it (so never deeper than a request may be); anything
// else by its size.
json LoggedBody(const std::string& body) {
  if (body.empty()) return nullptr;
  if (body.size() > kMaxLoggedBodyBytes) return "<" + std::to_string(body.size()) + " bytes>";
  auto parsed = ParseRequestJson(body);
  if (parsed) return std::move(*parsed);
  return "<" + std::to_string(body.size()) + " bytes>";
}

// Google's front end refuses a URL whose decoded path or query is not UTF-8: no name, field or
// parameter can hold such bytes, and none reaches a handler, the world or the log.
bool UrlIsUtf8(const ApiRequest& request) {
  if (!core::IsValidUtf8(request.path)) return false;
  for (const auto& [name, value] : request.query) {
    if (!core::IsValidUtf8(name) || !core::IsValidUtf8(value)) return false;
  }
  return true;
}

ApiResponse NotUtf8(const ApiRequest& request) {
  return ErrorFor(ErrorShapeOf(request.path), core::ErrorKind::kInvalidArgument,
                  "Invalid request: the URL's path or query is not valid UTF-8.");
}

}  // namespace

Emulator::Emulator(EmulatorConfig config, core::Clock& clock, SchemaSet schemas)
    : config_(std::move(config)), clock_(clock), schemas_(std::move(schemas)), world_(NewWorld()),
      faults_(config_.faults, config_.seed) {
  for (auto& route : AllRoutes()) {
    std::regex pattern(route.pattern);
    routes_.push_back({std::move(route), std::move(pattern)});
  }
}

core::Result<std::unique_ptr<Emulator>> Emulator::Create(EmulatorConfig config, core::Clock& clock) {
  auto schemas = SchemaSet::Builtin();
  if (!schemas) return core::Fail(schemas.error());
  json world = NewWorld();
  if (!config.state_file.empty()) {
    auto loaded = LoadWorld(config.state_file);
    if (!loaded) return core::Fail(loaded.error());
    world = std::move(*loaded);
  }
  // The flags' limits hold from the start, over what a state file kept.
  if (auto applied = ApplyCapacity(world, config.capacity); !applied) return core::Fail(applied.error());
  std::unique_ptr<Emulator> emulator(new Emulator(std::move(config), clock, std::move(*schemas)));
  emulator->world_ = std::move(world);
  return emulator;
}

std::vector<std::string> Emulator::MethodIds() {
  std::vector<std::string> ids;
  for (const auto& route : AllRoutes()) ids.push_back(route.method_id);
  return ids;
}

std::vector<std::string> Emulator::OperationMethodIds() {
  std::vector<std::string> ids;
  for (const auto& route : AllRoutes()) {
    if (route.starts_operation) ids.push_back(route.method_id);
  }
  return ids;
}

int64_t Emulator::NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_.WallNow().time_since_epoch()).count();
}

void Emulator::SaveLocked() {
  if (config_.state_file.empty()) return;
  if (auto status = SaveWorld(world_, config_.state_file); !status) {
    std::cerr << "emulator: " << status.error().message << "\n";
  }
}

json Emulator::State() {
  std::lock_guard lock(mutex_);
  int64_t now = NowMs();
  if (Advance(world_, now, config_)) SaveLocked();
  json state = StripPrivate(world_);
  state.erase("nextId");
  return state;
}

std::string Emulator::RequestsText() {
  std::lock_guard lock(mutex_);
  std::string text = "{\"requests\":[";
  text.reserve(requests_bytes_ + requests_.size() + 16);
  for (const auto& entry : requests_) {
    if (text.back() != '[') text += ',';
    text += entry;
  }
  text += "]}\n";
  return text;
}

json Emulator::Requests() {
  // Its own text, of entries no deeper than a request body may be.
  return core::ParseJson(
             RequestsText(), "the request log",
             {.max_bytes = std::numeric_limits<size_t>::max(), .max_values = std::numeric_limits<size_t>::max()})
      .value_or(json{{"requests", json::array()}});
}

void Emulator::Reset() {
  std::lock_guard lock(mutex_);
  world_ = NewWorld();
  (void)ApplyCapacity(world_, config_.capacity);  // checked when the emulator was created
  requests_.clear();
  requests_bytes_ = 0;
  faults_ = FaultPlan(config_.faults, config_.seed);
  SaveLocked();
}

ApiResponse Emulator::HandleAdmin(const ApiRequest& request) {
  if (request.method == "GET" && request.path == "/_emulator/state") return JsonReply(State());
  if (request.method == "GET" && request.path == "/_emulator/requests") {
    // Compact, never pretty-printed: indentation grows with depth, and so would the answer.
    ApiResponse response;
    response.body = RequestsText();
    return response;
  }
  if (request.path.rfind("/_emulator/tpu-hosts", 0) == 0) return HandleTpuHostsAdmin(request);
  if (request.path == "/_emulator/capacity" || request.path == "/_emulator/preempt") {
    ApiResponse response = HandleCapacityAdmin(request);
    SyncTpuHosts();  // a preempted node's hosts stop
    return response;
  }
  if (request.method == "POST" && request.path == "/_emulator/reset") {
    Reset();
    return JsonReply(json::object());
  }
  return Aip193Error(core::ErrorKind::kNotFound, "Unknown emulator admin path " + request.path +
                                                     " (GET /_emulator/state, GET /_emulator/requests, GET "
                                                     "/_emulator/tpu-hosts, GET or POST /_emulator/capacity, POST "
                                                     "/_emulator/preempt, POST /_emulator/reset)");
}

ApiResponse Emulator::Handle(const ApiRequest& request) {
  if (request.path.rfind("/_emulator/", 0) == 0) return HandleAdmin(request);
  // Each part is handled (and logged) as a request of its own.
  if (IsComputeBatch(request))
    return HandleComputeBatch(request, [this](const ApiRequest& part) { return Handle(part); });
  int64_t start = NowMs();
  ApiResponse response;
  try {
    if (request.path.size() > kMaxPathBytes) {
      response = UriTooLong();
    } else if (request.body.size() > MaxRequestBytes(request.path)) {
      response = RequestTooLarge();
    } else {
      response = UrlIsUtf8(request) ? Dispatch(request, start) : NotUtf8(request);
    }
  } catch (const std::exception& e) {  // nlohmann::json and std::sto* throw; answer as Google's INTERNAL
    response = Aip193Error(core::ErrorKind::kInternal, std::string("Internal error: ") + e.what());
  }
  json entry = {{"method", request.method},
                {"path", request.path},
                {"query", request.query},
                {"body", LoggedBody(request.body)},
                {"status", response.drop_connection ? 0 : response.status},
                {"start", start},
                {"end", NowMs()}};
  std::unique_lock lock(mutex_);
  entry["seq"] = ++request_seq_;
  // Kept as its text: what the log costs is what it answers, counted against its bounds. A byte
  // that is not UTF-8 (a header, a method) becomes U+FFFD here rather than an error at each read.
  std::string text = entry.dump(-1, ' ', false, json::error_handler_t::replace);
  requests_bytes_ += text.size();
  requests_.push_back(std::move(text));
  while (!requests_.empty() &&
         (requests_.size() > config_.request_log_limit || requests_bytes_ > config_.request_log_bytes)) {
    requests_bytes_ -= requests_.front().size();
    requests_.pop_front();
  }
  lock.unlock();
  SyncTpuHosts();
  return response;
}

ApiResponse Emulator::Dispatch(const ApiRequest& request, int64_t now_ms) {
  const ErrorShape shape = ErrorShapeOf(request.path);
  auto token = BearerToken(request);
  const bool has_token = token && !token->empty();
  if (!has_token && !ApiKeyOf(request)) {
    return ErrorFor(shape, core::ErrorKind::kUnauthenticated,
                    "Request is missing required authentication credential. Expected OAuth 2 access token, login "
                    "cookie or other valid authentication credential. See "
                    "https://developers.google.com/identity/sign-in/web/devconsole-project.");
  }
  for (const auto& compiled : routes_) {
    std::smatch match;
    if (compiled.route.http_method != request.method || !std::regex_match(request.path, match, compiled.pattern)) {
      continue;
    }
    if (!has_token) {
      if (auto refused = RefuseApiKey(request, compiled.route)) return *refused;
    }
    std::lock_guard lock(mutex_);
    bool advanced = Advance(world_, now_ms, config_);
    auto fault = faults_.Decide(compiled.route.method_id);
    if (fault && fault->action == FaultAction::kError) {
      if (advanced) SaveLocked();
      return InjectedError(*fault, compiled.route.shape);
    }
    if (fault && fault->action == FaultAction::kDrop) {
      if (advanced) SaveLocked();
      ApiResponse dropped;
      dropped.drop_connection = true;
      return dropped;
    }
    Call call{request, {}, compiled.route.method_id, now_ms, std::nullopt, world_, schemas_, config_};
    for (size_t i = 1; i < match.size(); ++i) call.args.push_back(match[i].str());
    if (auto disabled = ServiceDisabled(call, compiled.route.shape)) {
      if (advanced) SaveLocked();
      return *disabled;
    }
    if (fault && (fault->action == FaultAction::kStockout || fault->action == FaultAction::kStuck)) {
      call.op_fault = fault->action;
    }
    ApiResponse response = compiled.route.handler(call);
    if (advanced || call.mutated) SaveLocked();
    if (fault && fault->action == FaultAction::kLoseReply) response.drop_connection = true;
    auto fields = request.Param("fields");
    if (fields && response.status / 100 == 2 && response.content_type == "application/json") {
      // The emulator's own answer, from resources as deep as their schemas.
      auto body = core::ParseJson(response.body, "the emulator's own answer",
                                  {.max_bytes = std::numeric_limits<size_t>::max()});
      if (body) response = JsonReply(ApplyFieldMask(*body, *fields), response.status);
    }
    return response;
  }
  std::string message = "The requested URL " + request.method + " " + request.path + " was not found on this server.";
  return ErrorFor(shape, core::ErrorKind::kNotFound, message);
}

}  // namespace tputrain::emulator
