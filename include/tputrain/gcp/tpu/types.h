#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/gcp/operations/operation.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::tpu {

struct NodeRef {
  std::string project;
  std::string zone;
  std::string node;
  // Each part is one URL path segment, percent-encoded (see container::LocationRef).
  std::string Parent() const {
    return "projects/" + http::PathSegment(project) + "/locations/" + http::PathSegment(zone);
  }
  std::string Name() const { return Parent() + "/nodes/" + http::PathSegment(node); }
};

// A queued resource (tpu.projects.locations.queuedResources): how multislice TPU VMs are made.
struct QueuedResourceRef {
  std::string project;
  std::string zone;
  std::string id;
  std::string Parent() const { return NodeRef{project, zone, ""}.Parent(); }
  std::string Name() const { return Parent() + "/queuedResources/" + http::PathSegment(id); }
};

struct NodeSpec {
  std::string accelerator_type;  // "v5p-8"
  std::string runtime_version;   // "v2-alpha-tpuv5"
  std::map<std::string, std::string> metadata;
  std::map<std::string, std::string> labels;
  bool spot = false;
  bool reserved = false;
  std::string network = "default";
};

// Cloud TPU's operations are google.longrunning.Operation ("projects/P/locations/Z/operations/ID").
using operations::Operation;
using operations::OperationFromJson;
using operations::RpcStatus;

struct Node {
  std::string name;  // full resource name
  std::string accelerator_type;
  std::string runtime_version;
  std::string state;
  std::string health;
  bool spot = false;
  std::map<std::string, std::string> labels;
  std::vector<std::string> ip_addresses;  // one per worker host
  nlohmann::json raw;
};

// QueuedResourceState.state.
enum class QueuedResourceState {
  kUnspecified,
  kCreating,
  kAccepted,
  kProvisioning,
  kWaitingForResources,
  kActive,
  kFailed,
  kSuspending,
  kSuspended,
  kDeleting,
};
QueuedResourceState QueuedResourceStateFromName(std::string_view name);
std::string_view QueuedResourceStateName(QueuedResourceState state);

struct QueuedResource {
  std::string name;  // full resource name
  QueuedResourceState state = QueuedResourceState::kUnspecified;
  std::string failure;                        // state.failedData.error.message, when FAILED
  std::map<std::string, std::string> labels;  // the node template's
  std::vector<std::string> node_ids;          // the nodes it makes, in slice order
  nlohmann::json raw;
};

// One value a TPU VM host wrote (PUT .../instance/guest-attributes/NAMESPACE/KEY on its metadata
// server), as nodes.getGuestAttributes reports it.
struct GuestAttribute {
  std::string worker_id;  // "0".."N-1": the answer's position, which is the worker
  std::string ns;         // the namespace ("tputrain", "hostkeys")
  std::string key;
  std::string value;
};
// GetGuestAttributesResponse.guestAttributes[].queryValue.items[], each with its worker.
std::vector<GuestAttribute> GuestAttributesFromJson(const nlohmann::json& json);

// The Node body `gcloud compute tpus tpu-vm create` sends, plus labels.
nlohmann::json NodeToJson(const NodeSpec& spec);
// How a queued resource waits, and what it may draw on: gcloud compute tpus queued-resources
// create's --valid-until-duration, --valid-after-duration and --reservation.
struct Queueing {
  std::string valid_until_duration;  // queueingPolicy.validUntilDuration, "3600s"
  std::string valid_after_duration;  // queueingPolicy.validAfterDuration
  std::string reservation_name;      // "projects/P/locations/ZONE/reservations/R"
};

// The QueuedResource body `gcloud compute tpus queued-resources create ID --node-count N
// --node-prefix ID` sends: one nodeSpec whose multisliceParams make nodes ID-0..ID-N-1; with
// `slices` 0, `--node-id ID`: one node named ID.
nlohmann::json MultisliceToJson(const QueuedResourceRef& ref, const NodeSpec& spec, int slices,
                                const Queueing& queueing = {});
QueuedResource QueuedResourceFromJson(const nlohmann::json& json);
Node NodeFromJson(const nlohmann::json& json);
std::vector<std::string> DiffNode(const NodeSpec& want, const Node& have);

}  // namespace tputrain::gcp::tpu
