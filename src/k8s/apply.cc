#include "tputrain/k8s/apply.h"

#include <map>
#include <set>

#include "tputrain/k8s/readiness.h"

namespace tputrain::k8s {
namespace {

std::string GroupOf(const std::string& api_version) {
  auto slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

// group → kinds that a CRD in this batch defines.
std::map<std::string, std::set<std::string>> KindsDefinedBy(const std::vector<Object>& objects) {
  std::map<std::string, std::set<std::string>> defined;
  for (const auto& object : objects) {
    if (object.kind != "CustomResourceDefinition" || !object.json.contains("spec")) continue;
    const auto& spec = object.json["spec"];
    std::string group = spec.value("group", "");
    std::string kind = spec.contains("names") ? spec["names"].value("kind", "") : "";
    if (!group.empty() && !kind.empty()) defined[group].insert(kind);
  }
  return defined;
}

// The object without the bookkeeping that changes on every write.
nlohmann::json Comparable(nlohmann::json object) {
  if (object.is_object() && object.contains("metadata") && object["metadata"].is_object()) {
    object["metadata"].erase("managedFields");
    object["metadata"].erase("resourceVersion");
  }
  return object;
}

}  // namespace

std::string_view ApplyActionName(ApplyAction action, bool dry_run) {
  switch (action) {
    case ApplyAction::kCreated:
      return dry_run ? "created (server dry run)" : "created";
    case ApplyAction::kConfigured:
      return dry_run ? "configured (server dry run)" : "configured";
    case ApplyAction::kUnchanged:
      return dry_run ? "unchanged (server dry run)" : "unchanged";
  }
  return "";
}

core::Result<std::string> NamespaceFor(const Object& object, const std::string& flag_ns,
                                       const std::string& default_ns) {
  if (!object.ns.empty() && !flag_ns.empty() && object.ns != flag_ns) {
    return core::Fail(core::Error::Usage(object.source + ": " + object.Describe() + " names namespace \"" + object.ns +
                                         "\", which does not match --namespace \"" + flag_ns + "\""));
  }
  if (!object.ns.empty()) return object.ns;
  return flag_ns.empty() ? default_ns : flag_ns;
}

core::Result<std::vector<ApplyResult>> Apply(Client& client, Discovery& discovery, std::vector<Object> objects,
                                             const ApplyOptions& options, WatchDeps deps,
                                             const std::function<void(const ApplyResult&)>& on_applied) {
  objects = OrderForApply(std::move(objects));
  auto defined = KindsDefinedBy(objects);
  auto defined_here = [&](const Object& object) {
    auto it = defined.find(GroupOf(object.api_version));
    return it != defined.end() && it->second.count(object.kind) != 0;
  };
  // Resolve every kind up front, so that an unknown kind stops the apply before any change.
  for (const auto& object : objects) {
    if (defined_here(object)) continue;
    auto info = discovery.Lookup(object.api_version, object.kind);
    if (!info) {
      auto error = info.error();
      error.message = object.source + ": " + error.message;
      return core::Fail(error);
    }
  }

  std::vector<ApplyResult> results;
  for (auto& object : objects) {
    auto info = discovery.Lookup(object.api_version, object.kind);
    if (!info && options.dry_run && defined_here(object)) {
      // Its CRD was only validated, not created, so the server cannot check this object.
      return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                          object.source + ": " + object.Describe() +
                                              " cannot be checked by a server dry run until its "
                                              "CustomResourceDefinition is installed; apply the CRD first"));
    }
    if (!info) return core::Fail(info.error());
    if (info->namespaced) {
      auto ns = NamespaceFor(object, options.ns, client.default_namespace());
      if (!ns) return core::Fail(ns.error());
      object.ns = *ns;
      object.json["metadata"]["namespace"] = object.ns;
    } else {
      object.ns.clear();
      if (object.json["metadata"].contains("namespace")) object.json["metadata"].erase("namespace");
    }
    std::string path = info->ObjectPath(object.ns, object.name);
    std::string what = object.Describe();

    auto before = client.Send("GET", path);
    if (!before) return core::Fail(before.error());
    std::string old_version;
    nlohmann::json old_object;
    if (before->ok()) {
      old_object = nlohmann::json::parse(before->body, nullptr, false);
      if (old_object.is_object() && old_object.contains("metadata")) {
        old_version = old_object["metadata"].value("resourceVersion", "");
      }
    } else if (before->status != 404) {
      return core::Fail(ErrorFromStatus(before->status, before->body, what));
    }

    std::string query = "?fieldManager=" + http::UrlEncode(options.field_manager);
    if (options.force_conflicts) query += "&force=true";
    if (options.dry_run) query += "&dryRun=All";
    // JSON is YAML, so the body is the object as JSON: its types are already settled.
    auto response = client.Send("PATCH", path + query, object.json.dump(), "application/apply-patch+yaml");
    if (!response) return core::Fail(response.error());
    if (!response->ok()) return core::Fail(ErrorFromStatus(response->status, response->body, what));

    ApplyResult result;
    result.live = nlohmann::json::parse(response->body, nullptr, false);
    if (result.live.is_object() && result.live.contains("metadata")) {
      result.resource_version = result.live["metadata"].value("resourceVersion", "");
    }
    if (response->status == 201 || old_version.empty()) {
      result.action = ApplyAction::kCreated;
    } else {
      // A dry run never bumps the resourceVersion, so compare what would be stored instead.
      bool same = options.dry_run ? Comparable(old_object) == Comparable(result.live)
                                  : result.resource_version == old_version;
      result.action = same ? ApplyAction::kUnchanged : ApplyAction::kConfigured;
    }
    result.object = object;

    if (object.kind == "CustomResourceDefinition" && !options.dry_run) {
      WatchOptions watch_options;
      watch_options.timeout = options.crd_timeout;
      auto established = WatchObject(
          client, info->CollectionPath(""), object.name,
          [](const nlohmann::json* crd) { return ReadyVerdict("CustomResourceDefinition", crd); }, watch_options, deps);
      if (!established) return core::Fail(established.error());
      if (established->verdict.state != Verdict::State::kDone) {
        return core::Fail(core::Error::Make(core::ErrorKind::kDeadlineExceeded,
                                            what + " was not Established in time: " + established->verdict.detail));
      }
      std::string group = object.json["spec"].value("group", "");
      discovery.Forget(group);
    }
    if (on_applied) on_applied(result);
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace tputrain::k8s
