#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::container {

// GKE container/v1, always through the `projects/*/locations/*` paths (zones and regions alike).
// Build* return the exact request the matching call sends, for --dry-run.
class Client {
 public:
  Client(http::Transport& transport, std::string base_url);

  http::Request BuildCreateCluster(const LocationRef& parent, const ClusterSpec& spec) const;
  http::Request BuildDeleteCluster(const ClusterRef& ref) const;
  http::Request BuildCreateNodePool(const ClusterRef& parent, const NodePoolSpec& spec) const;
  http::Request BuildDeleteNodePool(const NodePoolRef& ref) const;

  core::Result<Operation> CreateCluster(const LocationRef& parent, const ClusterSpec& spec);
  core::Result<Cluster> GetCluster(const ClusterRef& ref);
  // `parent.location` "-" lists every location.
  core::Result<std::vector<Cluster>> ListClusters(const LocationRef& parent);
  core::Result<Operation> DeleteCluster(const ClusterRef& ref);

  core::Result<Operation> CreateNodePool(const ClusterRef& parent, const NodePoolSpec& spec);
  core::Result<NodePool> GetNodePool(const NodePoolRef& ref);
  core::Result<std::vector<NodePool>> ListNodePools(const ClusterRef& parent);
  core::Result<Operation> DeleteNodePool(const NodePoolRef& ref);

  // `name` is the operation's bare id; `parent` the location it runs in.
  core::Result<Operation> GetOperation(const LocationRef& parent, const std::string& name);

 private:
  std::string Url(const std::string& resource) const;

  http::Transport& transport_;
  std::string base_url_;
};

// How to wait for one of its operations (operations::Wait); `client` must outlive the wait. It
// ends DONE; an error, or (as gcloud reads it) any statusMessage, is its failure.
operations::Waiting<Operation> OperationWaiting(Client& client, const LocationRef& parent, const std::string& name);

}  // namespace tputrain::gcp::container
