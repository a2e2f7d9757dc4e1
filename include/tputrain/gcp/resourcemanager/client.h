#pragma once

#include <string>

#include "tputrain/core/result.h"
#include "tputrain/gcp/iam/types.h"
#include "tputrain/gcp/resourcemanager/types.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::resourcemanager {

// Cloud Resource Manager v1: the project (its number) and the project's IAM policy.
class Client {
 public:
  Client(http::Transport& transport, std::string base_url);

  http::Request BuildSetIamPolicy(const std::string& project, const iam::Policy& policy) const;

  core::Result<Project> GetProject(const std::string& project);
  core::Result<iam::Policy> GetIamPolicy(const std::string& project);
  core::Result<iam::Policy> SetIamPolicy(const std::string& project, const iam::Policy& policy);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

}  // namespace tputrain::gcp::resourcemanager
