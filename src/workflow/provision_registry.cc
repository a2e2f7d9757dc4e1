// Artifact Registry repositories: created (or adopted) and deleted as the other resources are,
// ledgered as `repository`. Deleting a repository deletes the images in it, as gcloud's does.
#include "provision_steps.h"
#include "tputrain/gcp/artifactregistry/client.h"

namespace tputrain::workflow {
namespace {

using gcp::artifactregistry::Client;
using gcp::artifactregistry::RepositoryRef;

// Waits for an Artifact Registry operation; an `error` in it becomes an Error.
core::Status WaitRegistry(ProvisionEnv& env, Client& client, const std::string& name, const std::string& task) {
  auto done = gcp::operations::Wait(
      gcp::artifactregistry::OperationWaiting(client, name), env.poll, env,
      [&](const gcp::artifactregistry::Operation& op) { env.reporter.Progress(task, op.done ? "done" : "running"); });
  if (!done) return core::Fail(done.error());
  return {};
}

// The operation to wait for, or "" when it came back done (Artifact Registry's usually do).
core::Result<std::string> Pending(const core::Result<gcp::artifactregistry::Operation>& op) {
  if (!op) return core::Fail(op.error());
  if (op->done && op->error) {
    return core::Fail(
        gcp::operations::ErrorFromRpcStatus(*op->error, "artifactregistry.projects.locations.repositories"));
  }
  return op->done ? std::string() : op->name;
}

}  // namespace

core::Result<Outcome> CreateRepository(ProvisionEnv& env, const RepositoryRef& ref,
                                       const gcp::artifactregistry::RepositorySpec& request) {
  Client client(env.transport, env.endpoints.artifactregistry);
  gcp::artifactregistry::RepositorySpec spec = request;
  if (!env.run_id.empty()) spec.labels.emplace(kRunLabel, env.run_id);
  const std::string task = "repository " + ref.repository;
  internal::CreateSteps steps;
  steps.kind = ResourceKind::kRepository;
  steps.name = ref.repository;
  steps.resource = ref.Name();
  steps.details = {{"project", ref.project},
                   {"location", ref.location},
                   {"repository", ref.repository},
                   {"format", spec.format},
                   {"docker_host", ref.DockerHost()}};
  steps.request = client.BuildCreate(ref, spec);
  steps.post = [&]() { return Pending(client.Create(ref, spec)); };
  steps.wait = [&](const std::string& op) { return WaitRegistry(env, client, op, task); };
  steps.inspect = [&]() -> core::Result<internal::Existing> {
    auto repository = client.Get(ref);
    if (!repository) return core::Fail(repository.error());
    return internal::Existing{gcp::artifactregistry::DiffRepository(spec, *repository),
                              internal::RunLabelOf(repository->labels)};
  };
  steps.ready = [] { return core::Result<bool>(true); };  // a repository has no state but existing
  return internal::RunCreate(env, steps);
}

core::Result<Outcome> DeleteRepository(ProvisionEnv& env, const RepositoryRef& ref) {
  Client client(env.transport, env.endpoints.artifactregistry);
  const std::string task = "repository " + ref.repository;
  internal::DeleteSteps steps{ResourceKind::kRepository, ref.repository, ref.Name(),
                              client.BuildDelete(ref),   nullptr,        nullptr};
  steps.send = [&]() { return Pending(client.Delete(ref)); };
  steps.wait = [&](const std::string& op) { return WaitRegistry(env, client, op, task); };
  return internal::RunDelete(env, steps);
}

}  // namespace tputrain::workflow
