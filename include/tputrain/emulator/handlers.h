#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/file.h"
#include "tputrain/core/result.h"
#include "tputrain/emulator/api.h"
#include "tputrain/emulator/billing_catalog.h"
#include "tputrain/emulator/config.h"
#include "tputrain/emulator/faults.h"
#include "tputrain/emulator/schema.h"

// The per-API request handlers behind Emulator::Handle. Each works on the world document under
// the emulator's lock and answers exactly as the Google API does for the calls gcloud sends.
namespace tputrain::emulator {

// The world: one JSON document, so that --state-file and GET /_emulator/state are trivial.
// Sections: clusters, containerOperations, tpuNodes, tpuOperations, queuedResources, buckets,
// objects (bucket -> name -> object), serviceAccounts (email -> account), policies
// (resource -> IAM policy), builds (id -> Build), buildOperations (name -> build id),
// dockerImages (repository -> "image@digest" -> DockerImage), uploads (resumable sessions),
// firewalls ("projects/P/global/firewalls/N" -> Firewall), reservations, resourcePolicies
// ("projects/P/regions/R/resourcePolicies/N" -> ResourcePolicy), computeOperations, nextId.
nlohmann::json NewWorld();
// The state file's bound: a few of the largest objects (kMaxObjectBytes, base64 in it) beside the
// resources. A file past it is refused before it is read.
inline constexpr size_t kMaxStateFileBytes = 128 * core::kMiB;
// A missing file is a new world; one larger than kMaxStateFileBytes, or not of the emulator's
// shape (its sections objects of resources), is one usage line naming --state-file.
core::Result<nlohmann::json> LoadWorld(const std::string& path);
core::Status SaveWorld(const nlohmann::json& world, const std::string& path);
int64_t NextId(nlohmann::json& world);

struct Call {
  const ApiRequest& request;
  std::vector<std::string> args;  // the route's captures
  std::string method_id;
  int64_t now_ms = 0;
  std::optional<FaultAction> op_fault;  // stockout/stuck for the operation this call starts
  nlohmann::json& world;
  const SchemaSet& schemas;
  const EmulatorConfig& config;
  bool mutated = false;

  // Parses the body as JSON and validates it against `schema`; on failure `error` is set.
  std::optional<nlohmann::json> Body(std::string_view api, std::string_view schema, ErrorShape shape,
                                     ApiResponse& error) const;
};

using Handler = ApiResponse (*)(Call&);

struct Route {
  std::string http_method;
  std::string pattern;  // ECMAScript regex over the decoded path
  std::string method_id;
  Handler handler;
  ErrorShape shape = ErrorShape::kAip193;
  bool starts_operation = false;
  // Also answers an API key (?key= or x-goog-api-key) in place of an OAuth token: the Billing
  // Catalog is the one API Google documents that way.
  bool accepts_api_key = false;
};

std::vector<Route> ContainerRoutes();
std::vector<Route> TpuRoutes();
std::vector<Route> TpuQueuedResourceRoutes();
std::vector<Route> TpuNodeUpdateRoutes();  // nodes.patch, nodes.getGuestAttributes
std::vector<Route> StorageRoutes();
std::vector<Route> IamRoutes();  // iam, cloudresourcemanager
std::vector<Route> ServiceUsageRoutes();
std::vector<Route> BillingCatalogRoutes();    // services.list, services.skus.list
std::vector<Route> ArtifactRegistryRoutes();  // repositories and their docker images
std::vector<Route> CloudBuildRoutes();
std::vector<Route> ComputeRoutes();                // global firewalls and global operations
std::vector<Route> ComputeReservationRoutes();     // zonal reservations and zone operations
std::vector<Route> ComputeResourcePolicyRoutes();  // regional resource policies and region operations
std::vector<Route> StorageUploadRoutes();          // uploadType=media, multipart and resumable
// GET /{bucket}/{object}, the XML API's path-style download (storage.googleapis.com), which
// gcloud's build-log tailer reads. It matches nearly any path: register it after every other route.
std::vector<Route> StorageXmlRoutes();

// 403 SERVICE_DISABLED, in `shape`, when the call's API is disabled (EmulatorConfig::disabled_apis,
// until enabled through Service Usage); nothing when it may proceed.
std::optional<ApiResponse> ServiceDisabled(const Call& call, ErrorShape shape);

// The request's API key (?key= or x-goog-api-key), if it has one.
std::optional<std::string> ApiKeyOf(const ApiRequest& request);
// For a request without an OAuth token: 401 when `route` takes no API key, 400 API_KEY_INVALID
// when the key is not one Google would have issued; nothing when the key is accepted.
std::optional<ApiResponse> RefuseApiKey(const ApiRequest& request, const Route& route);

// The next step of each API's timed records (operations.h runs them): an operation ends as its API
// ends it, and the resource it acts on changes with it; a build takes its next phase; a queued
// resource its next state.
void StepContainerOperation(nlohmann::json& world, nlohmann::json& op, int64_t at_ms, const EmulatorConfig& config);
void StepTpuOperation(nlohmann::json& world, nlohmann::json& op, int64_t at_ms, const EmulatorConfig& config);
void StepQueuedResource(nlohmann::json& world, nlohmann::json& resource, int64_t at_ms, const EmulatorConfig& config);
void StepComputeOperation(nlohmann::json& world, nlohmann::json& op, int64_t at_ms, const EmulatorConfig& config);
void StepBuild(nlohmann::json& world, nlohmann::json& build, int64_t at_ms, const EmulatorConfig& config);

// Cloud Storage state that other APIs read and write (Cloud Build's sources and logs).
// Stores a new bucket made from `request` (a Bucket resource with its name) for `project`.
nlohmann::json& StoreBucket(nlohmann::json& world, const nlohmann::json& request, const std::string& project,
                            int64_t now_ms);
// The object, or nullptr; `generation` "" means the latest.
const nlohmann::json* FindStoredObject(const nlohmann::json& world, const std::string& bucket, const std::string& name,
                                       const std::string& generation = "");
std::string ObjectBytes(const nlohmann::json& object);
// Writes (or replaces, with a new generation) an object; `metadata` is an Object resource.
const nlohmann::json& StoreObject(nlohmann::json& world, const std::string& bucket, const std::string& name,
                                  std::string_view bytes, nlohmann::json metadata, int64_t now_ms);
// The object's bytes, honouring a `Range: bytes=N-[M]` header: 200 whole, 206 part, 416 past the end.
ApiResponse MediaReply(const ApiRequest& request, const nlohmann::json& object);

// Artifact Registry docker images, as a build's push leaves them. `tag` is
// {location}-docker.pkg.dev/{project}/{repository}/{image}[:tag]. Returns what docker push prints
// when the repository does not exist (or is not a docker one), else registers the image.
std::optional<std::string> PushDockerImage(nlohmann::json& world, const std::string& tag, const std::string& digest,
                                           int64_t size_bytes, int64_t now_ms);
bool IsArtifactRegistryDockerTag(const std::string& tag);

// Shared checks.
std::string NewOperationId(nlohmann::json& world, int64_t now_ms);

}  // namespace tputrain::emulator
