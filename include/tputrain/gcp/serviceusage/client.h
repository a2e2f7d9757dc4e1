#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::serviceusage {

// A service (an API) as a project sees it.
struct Service {
  std::string name;   // "container.googleapis.com"
  std::string title;  // "Kubernetes Engine API"
  bool enabled = false;
};

using operations::Operation;

// Service Usage serviceusage/v1, as gcloud services calls it: one service is enabled with
// services/S:enable, several with services:batchEnable (at most 20 a call).
class Client {
 public:
  Client(http::Transport& transport, std::string base_url);

  http::Request BuildEnable(const std::string& project, const std::vector<std::string>& services) const;
  core::Result<Operation> Enable(const std::string& project, const std::vector<std::string>& services);
  core::Result<Operation> GetOperation(const std::string& name);
  core::Result<Service> GetService(const std::string& project, const std::string& service);
  // Every service the project can use, or only the enabled ones.
  core::Result<std::vector<Service>> ListServices(const std::string& project, bool enabled_only);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

// How to wait for one of its operations (operations::Wait); `client` must outlive the wait. The
// only operations tputrain starts here enable services: a failure is said to be the enable's.
operations::Waiting<Operation> OperationWaiting(Client& client, const std::string& name);

// "container" → "container.googleapis.com", as gcloud services enable reads its arguments.
std::string ServiceName(const std::string& name);

}  // namespace tputrain::gcp::serviceusage
