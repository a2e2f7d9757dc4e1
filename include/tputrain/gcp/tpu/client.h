#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/tpu/types.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::tpu {

// Cloud TPU tpu/v2: TPU VMs ("nodes") and their long-running operations.
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
  // `name` is the operation's full resource name.
  core::Result<Operation> GetOperation(const std::string& name);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

}  // namespace tputrain::gcp::tpu
