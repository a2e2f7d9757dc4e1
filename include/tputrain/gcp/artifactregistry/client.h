#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::artifactregistry {

struct RepositoryRef {
  std::string project;
  std::string location;  // a region ("us-east5") or a multi-region ("us")
  std::string repository;
  std::string Parent() const;  // projects/P/locations/L
  std::string Name() const;    // projects/P/locations/L/repositories/R
  // Where docker images of this repository live: us-east5-docker.pkg.dev/P/R.
  std::string DockerHost() const { return location + "-docker.pkg.dev/" + project + "/" + repository; }
};

struct RepositorySpec {
  std::string format = "DOCKER";
  std::string description;
  std::map<std::string, std::string> labels;
};

struct Repository {
  std::string name;
  std::string format;
  std::string description;
  std::map<std::string, std::string> labels;
  std::string registry_uri;
  nlohmann::json raw;
};

using operations::Operation;

// Artifact Registry artifactregistry/v1 repositories, with gcloud artifacts' request bodies.
class Client {
 public:
  Client(http::Transport& transport, std::string base_url);

  http::Request BuildCreate(const RepositoryRef& ref, const RepositorySpec& spec) const;
  http::Request BuildDelete(const RepositoryRef& ref) const;
  core::Result<Operation> Create(const RepositoryRef& ref, const RepositorySpec& spec);
  core::Result<Operation> Delete(const RepositoryRef& ref);
  core::Result<Operation> GetOperation(const std::string& name);
  core::Result<Repository> Get(const RepositoryRef& ref);
  core::Result<std::vector<Repository>> List(const std::string& project, const std::string& location);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

// How to wait for one of its operations (operations::Wait); `client` must outlive the wait.
operations::Waiting<Operation> OperationWaiting(Client& client, const std::string& name);

// The fields of `repository` that differ from `spec`, as "format: DOCKER != MAVEN".
std::vector<std::string> DiffRepository(const RepositorySpec& spec, const Repository& repository);

}  // namespace tputrain::gcp::artifactregistry
