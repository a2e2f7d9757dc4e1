#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/watch.h"

namespace tputrain::k8s {

struct ApplyOptions {
  std::string field_manager = "tputrain";
  bool dry_run = false;                           // dryRun=All: the server validates and defaults, stores nothing
  bool force_conflicts = false;                   // take over fields another manager owns
  std::string ns;                                 // -n: the namespace for objects that name none
  std::chrono::milliseconds crd_timeout{60'000};  // how long a new CRD may take to be Established
  // Check each custom resource against the schema of the CRD installed on the cluster before it
  // is sent (kubectl's --validate, here done client-side).
  bool validate = true;
};

enum class ApplyAction { kCreated, kConfigured, kUnchanged };
std::string_view ApplyActionName(ApplyAction action, bool dry_run);  // "created", "configured (dry run)"

struct ApplyResult {
  Object object;  // with its namespace filled in
  ApplyAction action = ApplyAction::kCreated;
  std::string resource_version;
  nlohmann::json live;  // what the server returned
};

// Server-side apply of `objects` in dependency order (OrderForApply): PATCH with
// application/apply-patch+yaml and fieldManager. A CRD is waited for until Established before
// the objects that use it. Every kind is resolved before anything is sent, so an unknown kind
// changes nothing; likewise, with `validate`, a custom resource that does not fit its installed
// CRD's schema (ValidateAgainstSchema) is a usage error with one line per field, "RayCluster
// ns/name: invalid manifest: spec.x: expected integer, got string \"two\"", and nothing is sent
// (one whose CRD is in the same batch is checked once that CRD is Established). Stops at the
// first error. `on_applied` reports each object as it lands.
core::Result<std::vector<ApplyResult>> Apply(Client& client, Discovery& discovery, std::vector<Object> objects,
                                             const ApplyOptions& options, WatchDeps deps,
                                             const std::function<void(const ApplyResult&)>& on_applied = {});

// The namespace an object goes to: its own, else `flag_ns`, else the context's default;
// a conflict between its own and `flag_ns` is an error (as kubectl's).
core::Result<std::string> NamespaceFor(const Object& object, const std::string& flag_ns, const std::string& default_ns);

}  // namespace tputrain::k8s
