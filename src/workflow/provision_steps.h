#pragma once

// The create/delete skeleton every resource kind shares (private to the workflow module).
#include <functional>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "tputrain/workflow/provision.h"

namespace tputrain::workflow::internal {

// What a read of a resource that already exists says.
struct Existing {
  std::vector<std::string> differences;  // fields that differ from the request
  std::string run_label;                 // its tputrain-run label ("" when none, or the kind has no labels)
};

// Why a create was not sent: its ledger entry could not be written first.
core::Error NotRecorded(const std::string& what, const core::Error& cause);

// "TASK exists with a different shape:" and a line per field (kAlreadyExists, 409).
core::Error DiffersError(const std::string& task, const std::vector<std::string>& differences);

// The tputrain-run label in `labels`, "" when absent.
std::string RunLabelOf(const std::map<std::string, std::string>& labels);

// What one idempotent create needs to know about its resource kind.
struct CreateSteps {
  ResourceKind kind = ResourceKind::kUnknown;
  std::string name;      // display name
  std::string resource;  // ledger key
  nlohmann::json details = nlohmann::json::object();
  http::Request request;  // what --dry-run prints
  // Sends the create; returns the operation to wait for ("" when the create is synchronous).
  std::function<core::Result<std::string>()> post;
  // Waits for the operation (never called with "").
  std::function<core::Status(const std::string& operation)> wait;
  // Reads the resource: the fields that differ from the request and its run label, or kNotFound.
  std::function<core::Result<Existing>()> inspect;
  // Polled after an ambiguous create found the resource: true once it is usable.
  std::function<core::Result<bool>()> ready;
  // Turns a failure into the message users need (stockout hints).
  std::function<core::Error(core::Error)> explain;
  // Deletes the existing resource, for ProvisionEnv::recreate_unusable; null where there is no
  // unusable state to leave (buckets, service accounts).
  std::function<core::Result<Outcome>()> remove;
  // After `wait`: when the API says the operation ended (RFC 3339), "" when it did not say. The
  // entry's ready_at, the start of what bills.
  std::function<std::string()> ended_at;
  // The command that deletes the resource by hand, for a user told to ("tputrain tpu-vm delete N
  // --zone Z"); empty where tputrain has none.
  std::string delete_command;
};

core::Result<Outcome> RunCreate(ProvisionEnv& env, const CreateSteps& steps);

struct DeleteSteps {
  ResourceKind kind = ResourceKind::kUnknown;
  std::string name;
  std::string resource;
  http::Request request;
  std::function<core::Result<std::string>()> send;  // "" when synchronous
  std::function<core::Status(const std::string& operation)> wait;
  std::function<std::string()> ended_at;  // as CreateSteps': the entry's deleted_at
};

// 404 is "already gone"; the ledger entry (if any) ends kDeleted.
core::Result<Outcome> RunDelete(ProvisionEnv& env, const DeleteSteps& steps);

// No reply, or a 5xx reply: the create may or may not have happened.
bool IsAmbiguous(const core::Error& error);
// GKE's "cluster already has an operation" and per-cluster operation quota answers.
bool IsClusterBusy(const core::Error& error);
// Sends `call` again after a backoff while the cluster is busy.
core::Result<std::string> RetryWhileBusy(ProvisionEnv& env, const std::string& task,
                                         const std::function<core::Result<std::string>()>& call);

std::string Seconds(std::chrono::milliseconds elapsed);

}  // namespace tputrain::workflow::internal
