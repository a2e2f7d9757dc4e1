#pragma once

#include <map>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::tpu {

// Cloud TPU tpu/v2: TPU VMs ("nodes"), queued resources and their long-running operations.
class Client {
 public:
  Client(http::Transport& transport, std::string base_url);

  http::Request BuildCreateNode(const NodeRef& ref, const NodeSpec& spec) const;
  http::Request BuildDeleteNode(const NodeRef& ref) const;

  core::Result<Operation> CreateNode(const NodeRef& ref, const NodeSpec& spec);
  core::Result<Node> GetNode(const NodeRef& ref);
  // `zone` "-" lists every zone.
  core::Result<std::vector<Node>> ListNodes(const std::string& project, const std::string& zone);
  core::Result<Operation> DeleteNode(const NodeRef& ref);
  // The values the hosts wrote under `query_path` ("tputrain/" for one namespace; empty for all),
  // of every worker (tpu.projects.locations.nodes.getGuestAttributes).
  core::Result<std::vector<GuestAttribute>> GetGuestAttributes(const NodeRef& ref, const std::string& query_path);
  // Replaces the node's metadata map with `metadata` (nodes.patch, updateMask=metadata).
  core::Result<Operation> PatchNodeMetadata(const NodeRef& ref, const std::map<std::string, std::string>& metadata);

  // Multislice: `slices` nodes ID-0..ID-N-1 of `spec`, made together by one queued resource
  // (`slices` 0: one node ID, queued).
  http::Request BuildCreateMultislice(const QueuedResourceRef& ref, const NodeSpec& spec, int slices,
                                      const Queueing& queueing = {}) const;
  // force: its nodes are deleted first (an ACTIVE one is refused without it).
  http::Request BuildDeleteQueuedResource(const QueuedResourceRef& ref, bool force) const;
  core::Result<Operation> CreateMultislice(const QueuedResourceRef& ref, const NodeSpec& spec, int slices,
                                           const Queueing& queueing = {});
  core::Result<QueuedResource> GetQueuedResource(const QueuedResourceRef& ref);
  // The accelerator types the zone offers ("v6e-8", ...): acceleratorTypes.list.
  core::Result<std::vector<std::string>> ListAcceleratorTypes(const std::string& project, const std::string& zone);
  core::Result<std::vector<QueuedResource>> ListQueuedResources(const std::string& project, const std::string& zone);
  core::Result<Operation> DeleteQueuedResource(const QueuedResourceRef& ref, bool force);

  // `name` is the operation's full resource name.
  core::Result<Operation> GetOperation(const std::string& name);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

// How to wait for one of its operations (operations::Wait); `client` must outlive the wait.
operations::Waiting<Operation> OperationWaiting(Client& client, const std::string& name);

// How to wait for a queued resource to leave the queue: it ends ACTIVE, or in a state it does not
// leave by itself (QueuedResourceFailure).
operations::Waiting<QueuedResource> QueuedResourceWaiting(Client& client, const QueuedResourceRef& ref);
// FAILED (with its failure's message), SUSPENDING, SUSPENDED and DELETING: kFailedPrecondition.
std::optional<core::Error> QueuedResourceFailure(const QueuedResource& resource);

}  // namespace tputrain::gcp::tpu
