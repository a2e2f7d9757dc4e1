#pragma once

#include <string>

#include "tputrain/core/result.h"
#include "tputrain/gcp/iam/types.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::iam {

// IAM iam/v1: service accounts and their own IAM policy. Calls about an account use the
// project in its email, as gcloud does.
class Client {
 public:
  Client(http::Transport& transport, std::string base_url);

  http::Request BuildCreateServiceAccount(const std::string& project, const std::string& account_id,
                                          const std::string& display_name) const;
  http::Request BuildDeleteServiceAccount(const std::string& email) const;
  http::Request BuildSetIamPolicy(const std::string& email, const Policy& policy) const;

  core::Result<ServiceAccount> CreateServiceAccount(const std::string& project, const std::string& account_id,
                                                    const std::string& display_name);
  core::Result<ServiceAccount> GetServiceAccount(const std::string& email);
  core::Status DeleteServiceAccount(const std::string& email);
  core::Result<Policy> GetIamPolicy(const std::string& email);
  core::Result<Policy> SetIamPolicy(const std::string& email, const Policy& policy);

 private:
  std::string AccountUrl(const std::string& email) const;

  http::Transport& transport_;
  std::string base_url_;
};

}  // namespace tputrain::gcp::iam
