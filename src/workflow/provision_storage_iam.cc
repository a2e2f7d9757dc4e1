// Buckets, service accounts and IAM members: synchronous APIs, no operations to wait for.
#include <optional>

#include "provision_steps.h"
#include "tputrain/core/poll.h"
#include "tputrain/core/text.h"
#include "tputrain/gcp/iam/client.h"
#include "tputrain/gcp/resourcemanager/client.h"
#include "tputrain/gcp/storage/client.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow {
namespace {

using gcp::iam::Policy;

std::string TargetName(PolicyTarget target) {
  switch (target) {
    case PolicyTarget::kProject:
      return "project";
    case PolicyTarget::kBucket:
      return "bucket";
    case PolicyTarget::kServiceAccount:
      return "service-account";
  }
  return "";
}

// The three policy APIs behind one pair of calls.
struct PolicyApi {
  ProvisionEnv& env;
  const PolicyBinding& binding;

  core::Result<Policy> Get() {
    switch (binding.target) {
      case PolicyTarget::kProject:
        return gcp::resourcemanager::Client(env.transport, env.endpoints.resourcemanager)
            .GetIamPolicy(binding.resource);
      case PolicyTarget::kBucket:
        return gcp::storage::Client(env.transport, env.endpoints.storage).GetIamPolicy(binding.resource);
      case PolicyTarget::kServiceAccount:
        return gcp::iam::Client(env.transport, env.endpoints.iam).GetIamPolicy(binding.resource);
    }
    return core::Fail(core::Error::Internal("unknown policy target"));
  }
  core::Result<Policy> Set(const Policy& policy) {
    switch (binding.target) {
      case PolicyTarget::kProject:
        return gcp::resourcemanager::Client(env.transport, env.endpoints.resourcemanager)
            .SetIamPolicy(binding.resource, policy);
      case PolicyTarget::kBucket:
        return gcp::storage::Client(env.transport, env.endpoints.storage).SetIamPolicy(binding.resource, policy);
      case PolicyTarget::kServiceAccount:
        return gcp::iam::Client(env.transport, env.endpoints.iam).SetIamPolicy(binding.resource, policy);
    }
    return core::Fail(core::Error::Internal("unknown policy target"));
  }
  http::Request BuildSet(const Policy& policy) {
    switch (binding.target) {
      case PolicyTarget::kProject:
        return gcp::resourcemanager::Client(env.transport, env.endpoints.resourcemanager)
            .BuildSetIamPolicy(binding.resource, policy);
      case PolicyTarget::kBucket:
        return gcp::storage::Client(env.transport, env.endpoints.storage).BuildSetIamPolicy(binding.resource, policy);
      case PolicyTarget::kServiceAccount:
        return gcp::iam::Client(env.transport, env.endpoints.iam).BuildSetIamPolicy(binding.resource, policy);
    }
    return {};
  }
};

Outcome BindingOutcome(const PolicyBinding& binding, OutcomeAction action) {
  std::string key = TargetName(binding.target) + "/" + binding.resource + "|" + binding.role + "|" + binding.member;
  return Outcome{ResourceKind::kIamMember,
                 binding.member + " " + binding.role + " on " + TargetName(binding.target) + " " + binding.resource,
                 key,
                 action,
                 "",
                 {{"target", TargetName(binding.target)},
                  {"resource", binding.resource},
                  {"role", binding.role},
                  {"member", binding.member}}};
}

// Get, change, set with the etag; a concurrent change (409 ABORTED) starts the cycle again.
core::Result<bool> ModifyPolicy(ProvisionEnv& env, const PolicyBinding& binding, bool add) {
  PolicyApi api{env, binding};
  core::PollOptions retry{std::chrono::milliseconds(500), 2.0, std::chrono::seconds(8)};
  retry.is_transient = [](const core::Error& error) { return error.kind == core::ErrorKind::kAborted; };
  retry.transient_failures = 5;
  bool changed = false;
  std::optional<core::Error> read_failure;  // not retried: only Set's etag conflict starts a new cycle
  auto status = core::PollUntil(
      [&]() -> core::Result<bool> {
        auto policy = api.Get();
        if (!policy) {
          read_failure = policy.error();
          return true;
        }
        changed = add ? gcp::iam::AddMember(*policy, binding.role, binding.member)
                      : gcp::iam::RemoveMember(*policy, binding.role, binding.member);
        if (!changed) return true;
        auto set = api.Set(*policy);
        if (!set) return core::Fail(set.error());
        return true;
      },
      retry, {env.clock, env.sleeper, nullptr});
  if (read_failure) return core::Fail(*read_failure);
  if (!status) return core::Fail(status.error());
  return changed;
}

}  // namespace

core::Result<Outcome> CreateBucket(ProvisionEnv& env, const std::string& project,
                                   const gcp::storage::BucketSpec& request) {
  gcp::storage::Client client(env.transport, env.endpoints.storage);
  gcp::storage::BucketSpec spec = request;
  if (!env.run_id.empty()) spec.labels.emplace(kRunLabel, env.run_id);
  internal::CreateSteps steps;
  steps.kind = ResourceKind::kBucket;
  steps.name = spec.name;
  steps.resource = spec.name;
  steps.details = {{"project", project}, {"bucket", spec.name}};
  steps.request = client.BuildInsertBucket(project, spec);
  steps.post = [&]() -> core::Result<std::string> {
    auto bucket = client.InsertBucket(project, spec);
    if (!bucket) return core::Fail(bucket.error());
    return std::string();
  };
  steps.inspect = [&]() -> core::Result<internal::Existing> {
    auto bucket = client.GetBucket(spec.name);
    if (!bucket) return core::Fail(bucket.error());
    return internal::Existing{gcp::storage::DiffBucket(spec, *bucket), internal::RunLabelOf(bucket->labels)};
  };
  steps.ready = [] { return core::Result<bool>(true); };
  steps.wait = [](const std::string&) { return core::Status(); };
  return internal::RunCreate(env, steps);
}

core::Result<Outcome> DeleteBucket(ProvisionEnv& env, const std::string& bucket, bool force) {
  gcp::storage::Client client(env.transport, env.endpoints.storage);
  internal::DeleteSteps steps{
      ResourceKind::kBucket, bucket, bucket, client.BuildDeleteBucket(bucket), nullptr, nullptr};
  steps.send = [&]() -> core::Result<std::string> {
    auto objects = client.ListObjects(bucket);
    if (!objects) return core::Fail(objects.error());
    if (!objects->empty() && !force) {
      return core::Fail(core::Error::Usage("bucket " + bucket + " holds " +
                                           core::Counted(static_cast<long long>(objects->size()), "object") +
                                           "; pass --force to delete them with it"));
    }
    for (const auto& object : *objects) {
      auto deleted = client.DeleteObject(bucket, object);
      if (!deleted && deleted.error().kind != core::ErrorKind::kNotFound) return core::Fail(deleted.error());
    }
    auto deleted = client.DeleteBucket(bucket);
    if (!deleted) return core::Fail(deleted.error());
    return std::string();
  };
  steps.wait = [](const std::string&) { return core::Status(); };
  return internal::RunDelete(env, steps);
}

core::Result<Outcome> CreateServiceAccount(ProvisionEnv& env, const std::string& project, const std::string& account_id,
                                           const std::string& display_name) {
  gcp::iam::Client client(env.transport, env.endpoints.iam);
  std::string email = gcp::iam::ServiceAccountEmail(account_id, project);
  internal::CreateSteps steps;
  steps.kind = ResourceKind::kServiceAccount;
  steps.name = email;
  steps.resource = email;
  steps.details = {{"project", project}, {"email", email}};
  steps.request = client.BuildCreateServiceAccount(project, account_id, display_name);
  steps.post = [&]() -> core::Result<std::string> {
    auto account = client.CreateServiceAccount(project, account_id, display_name);
    if (!account) return core::Fail(account.error());
    return std::string();
  };
  steps.inspect = [&]() -> core::Result<internal::Existing> {
    auto account = client.GetServiceAccount(email);
    if (!account) return core::Fail(account.error());
    return internal::Existing{};  // an account has no shape beyond its id, and no labels
  };
  steps.ready = [] { return core::Result<bool>(true); };
  steps.wait = [](const std::string&) { return core::Status(); };
  return internal::RunCreate(env, steps);
}

core::Result<Outcome> DeleteServiceAccount(ProvisionEnv& env, const std::string& email) {
  gcp::iam::Client client(env.transport, env.endpoints.iam);
  internal::DeleteSteps steps{ResourceKind::kServiceAccount,           email,   email,
                              client.BuildDeleteServiceAccount(email), nullptr, nullptr};
  steps.send = [&]() -> core::Result<std::string> {
    auto deleted = client.DeleteServiceAccount(email);
    if (!deleted) return core::Fail(deleted.error());
    return std::string();
  };
  steps.wait = [](const std::string&) { return core::Status(); };
  return internal::RunDelete(env, steps);
}

core::Result<Outcome> AddPolicyBinding(ProvisionEnv& env, const PolicyBinding& binding) {
  Outcome outcome = BindingOutcome(binding, OutcomeAction::kBound);
  if (env.dry_run != nullptr) {
    // The set carries the policy as read plus this member; the read is not sent in a dry run,
    // but when looking first (up --dry-run), where a member already bound is no change.
    Policy policy;
    policy.etag = "<etag from getIamPolicy>";
    if (env.look_first) {
      if (auto read = PolicyApi{env, binding}.Get(); read) {
        if (!gcp::iam::AddMember(*read, binding.role, binding.member)) {
          outcome.action = OutcomeAction::kAlreadyBound;
          return outcome;
        }
      }
    }
    gcp::iam::AddMember(policy, binding.role, binding.member);
    env.dry_run->push_back(PolicyApi{env, binding}.BuildSet(policy));
    outcome.action = OutcomeAction::kWouldSend;
    return outcome;
  }
  const std::string task = "iam " + binding.role;
  bool owned_before = false;
  if (env.ledger != nullptr) {
    auto ledger = env.ledger->Load(env.run_id);
    if (ledger) {
      auto* entry = ledger->Find(outcome.kind, outcome.resource);
      owned_before = entry != nullptr && entry->owned && entry->state != state::EntryState::kDeleted;
    }
    auto recorded = env.ledger->RecordCreating(
        env.run_id, state::LedgerEntry{.kind = outcome.kind, .name = outcome.resource, .details = outcome.details});
    if (!recorded) return core::Fail(internal::NotRecorded(task, recorded.error()));
  }
  auto changed = ModifyPolicy(env, binding, /*add=*/true);
  if (!changed) {
    // A set that got no reply (or a 5xx) may have landed: the entry stays `creating` so that
    // cleanup looks and removes the member if it is there.
    if (env.ledger != nullptr && !internal::IsAmbiguous(changed.error())) {
      (void)env.ledger->RecordState(env.run_id, outcome.kind, outcome.resource, state::EntryState::kDeleted);
    }
    return core::Fail(changed.error());
  }
  if (env.ledger != nullptr) {
    // A member that was there before is not ours to remove later.
    bool owned = *changed || owned_before;
    (void)env.ledger->Update(env.run_id, [&](state::Ledger& ledger) {
      if (auto* entry = ledger.Find(outcome.kind, outcome.resource)) {
        entry->owned = owned;
        entry->state = state::EntryState::kCreated;
      }
    });
  }
  outcome.action = *changed ? OutcomeAction::kBound : OutcomeAction::kAlreadyBound;
  env.reporter.Done(task, outcome.name + ": " + std::string(OutcomeActionPhrase(outcome.action)));
  return outcome;
}

core::Result<Outcome> RemovePolicyBinding(ProvisionEnv& env, const PolicyBinding& binding) {
  Outcome outcome = BindingOutcome(binding, OutcomeAction::kUnbound);
  if (env.dry_run != nullptr) {
    Policy policy;
    policy.etag = "<etag from getIamPolicy>";
    env.dry_run->push_back(PolicyApi{env, binding}.BuildSet(policy));
    outcome.action = OutcomeAction::kWouldSend;
    return outcome;
  }
  auto changed = ModifyPolicy(env, binding, /*add=*/false);
  // The bucket or service account the policy belongs to is gone, and the member with it.
  bool resource_gone = !changed && changed.error().kind == core::ErrorKind::kNotFound;
  if (!changed && !resource_gone) return core::Fail(changed.error());
  if (env.ledger != nullptr) {
    (void)env.ledger->RecordState(env.run_id, outcome.kind, outcome.resource, state::EntryState::kDeleted);
  }
  outcome.action = !resource_gone && *changed ? OutcomeAction::kUnbound : OutcomeAction::kAlreadyGone;
  env.reporter.Done("iam " + binding.role, outcome.name + ": " + std::string(OutcomeActionPhrase(outcome.action)));
  return outcome;
}

core::Result<std::string> WorkloadIdentityPrincipal(ProvisionEnv& env, const std::string& project,
                                                    const std::string& ns, const std::string& ksa) {
  std::string number = "PROJECT_NUMBER";
  if (env.dry_run == nullptr || env.look_first) {
    auto found = gcp::resourcemanager::Client(env.transport, env.endpoints.resourcemanager).GetProject(project);
    if (!found) return core::Fail(found.error());
    if (found->project_number.empty()) {
      return core::Fail(core::Error::Internal("project " + project + " has no projectNumber in its description"));
    }
    number = found->project_number;
  }
  return "principal://iam.googleapis.com/projects/" + number + "/locations/global/workloadIdentityPools/" + project +
         ".svc.id.goog/subject/ns/" + ns + "/sa/" + ksa;
}

std::string LegacyWorkloadIdentityMember(const std::string& project, const std::string& ns, const std::string& ksa) {
  return "serviceAccount:" + project + ".svc.id.goog[" + ns + "/" + ksa + "]";
}

}  // namespace tputrain::workflow
