#include "tputrain/k8s/delete.h"

#include <algorithm>

#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/k8s/readiness.h"

namespace tputrain::k8s {

core::Result<std::vector<DeleteResult>> Delete(Client& client, Discovery& discovery, std::vector<Object> objects,
                                               const DeleteOptions& options, WatchDeps deps,
                                               const std::function<void(const DeleteResult&)>& on_deleted) {
  objects = OrderForApply(std::move(objects));
  std::reverse(objects.begin(), objects.end());
  std::vector<DeleteResult> results;
  for (auto& object : objects) {
    auto info = discovery.Lookup(object.api_version, object.kind);
    if (!info) {
      // The kind is no longer served (its CRD went first): nothing of it can remain.
      if (info.error().kind == core::ErrorKind::kFailedPrecondition) {
        results.push_back({object, false});
        if (on_deleted) on_deleted(results.back());
        continue;
      }
      return core::Fail(info.error());
    }
    if (info->namespaced) {
      auto ns = NamespaceFor(object, options.ns, client.default_namespace());
      if (!ns) return core::Fail(ns.error());
      object.ns = *ns;
    } else {
      object.ns.clear();
    }
    nlohmann::json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}, {"propagationPolicy", "Foreground"}};
    std::string path = info->ObjectPath(object.ns, object.name);
    if (options.dry_run) {
      body["dryRun"] = {"All"};
      path += "?dryRun=All";  // the query form is what marks the request as a server dry run
    }
    auto response = client.Send("DELETE", path, body.dump());
    if (!response) return core::Fail(response.error());
    DeleteResult result{object, true};
    if (response->status == 404) {
      result.existed = false;
    } else if (!response->ok()) {
      return core::Fail(ErrorFromStatus(response->status, response->body, object.Describe()));
    } else if (options.wait && !options.dry_run) {
      WatchOptions watch_options;
      watch_options.timeout = options.timeout;
      auto gone = WatchObject(client, info->CollectionPath(object.ns), object.name, GoneVerdict, watch_options, deps);
      if (!gone) return core::Fail(gone.error());
      if (gone->verdict.state != Verdict::State::kDone) {
        return core::Fail(core::Error::Make(
            core::ErrorKind::kDeadlineExceeded,
            "timed out waiting for " + object.Describe() + " to be deleted: " + gone->verdict.detail));
      }
      if (object.kind == "CustomResourceDefinition")
        discovery.Forget(core::StringAt(core::ObjectAt(object.json, "spec"), "group"));
    }
    if (on_deleted) on_deleted(result);
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace tputrain::k8s
