#include "tputrain/k8s/apply.h"

#include <limits>
#include <map>
#include <set>

#include "schema_validation.h"
#include "tputrain/core/json.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/poll.h"
#include "tputrain/k8s/readiness.h"

namespace tputrain::k8s {
namespace {

std::string GroupOf(const std::string& api_version) {
  auto slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

std::string VersionOf(const std::string& api_version) {
  auto slash = api_version.find('/');
  return slash == std::string::npos ? api_version : api_version.substr(slash + 1);
}

// group → kinds that a CRD in this batch defines.
std::map<std::string, std::set<std::string>> KindsDefinedBy(const std::vector<Object>& objects) {
  std::map<std::string, std::set<std::string>> defined;
  for (const auto& object : objects) {
    if (object.kind != "CustomResourceDefinition") continue;
    const auto& spec = core::ObjectAt(object.json, "spec");
    std::string group = core::StringAt(spec, "group");
    std::string kind = core::StringAt(core::ObjectAt(spec, "names"), "kind");
    if (!group.empty() && !kind.empty()) defined[group].insert(kind);
  }
  return defined;
}

// The object without the bookkeeping that changes on every write, and without its status, which
// is the controller's: what an apply can change.
nlohmann::json Comparable(nlohmann::json object) {
  if (object.is_object() && object.contains("metadata") && object["metadata"].is_object()) {
    object["metadata"].erase("managedFields");
    object["metadata"].erase("resourceVersion");
  }
  if (object.is_object()) object.erase("status");
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

namespace {

// Where the object goes: its namespace for a namespaced kind (written into the body too), none
// for a cluster-scoped one.
core::Status Place(Object& object, const ResourceInfo& info, const std::string& flag_ns,
                   const std::string& default_ns) {
  if (!info.namespaced) {
    object.ns.clear();
    if (object.json["metadata"].contains("namespace")) object.json["metadata"].erase("namespace");
    return {};
  }
  auto ns = NamespaceFor(object, flag_ns, default_ns);
  if (!ns) return core::Fail(ns.error());
  object.ns = *ns;
  object.json["metadata"]["namespace"] = object.ns;
  return {};
}

// Without this check the server answers a wrong type or an unknown field with one 500 naming
// only the first, and a missing field with a 422, after the objects before it were applied.
// Kinds no CRD serves, and CRDs this user may not read, are left to the server.
core::Status CheckAgainstCrd(Discovery& discovery, const ResourceInfo& info, const Object& object) {
  auto crd = discovery.InstalledCrd(info);
  if (!crd) return core::Fail(crd.error());
  const nlohmann::json* schema = *crd ? SchemaForVersion(**crd, VersionOf(info.group_version)) : nullptr;
  if (schema == nullptr) return {};
  auto errors = ValidateAgainstSchema(object.json, *schema);
  if (errors.empty()) return {};
  std::string lines;
  for (const auto& field : errors) {
    if (!lines.empty()) lines += "\n";
    lines += object.Describe() + ": invalid manifest: " + field.Line();
  }
  // Bad input, named field by field: a usage error, never retried.
  auto error = core::Error::Usage(lines);
  error.reason = "SchemaValidation";
  return core::Fail(error);
}

// One server-side apply; the GET before it tells created, configured and unchanged apart.
core::Result<ApplyResult> SendApply(Client& client, const ResourceInfo& info, const Object& object,
                                    const ApplyOptions& options) {
  std::string path = info.ObjectPath(object.ns, object.name);
  std::string what = object.Describe();
  auto before = client.Send("GET", path);
  if (!before) return core::Fail(before.error());
  std::string old_version;
  nlohmann::json old_object;
  if (before->ok()) {
    old_object = core::ParseJson(before->body, "").value_or(nullptr);
    old_version = core::StringAt(core::ObjectAt(old_object, "metadata"), "resourceVersion");
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
  result.object = object;
  result.live = core::ParseJson(response->body, "").value_or(nullptr);
  result.resource_version = core::StringAt(core::ObjectAt(result.live, "metadata"), "resourceVersion");
  if (response->status == 201 || old_version.empty()) {
    result.action = ApplyAction::kCreated;
  } else {
    // A dry run never bumps the resourceVersion, and a controller's status write between the read
    // and the patch bumps it without any change of ours: compare what the apply could change.
    bool same = (!options.dry_run && result.resource_version == old_version) ||
                Comparable(old_object) == Comparable(result.live);
    result.action = same ? ApplyAction::kUnchanged : ApplyAction::kConfigured;
  }
  return result;
}

core::Status WaitEstablished(Client& client, const ResourceInfo& info, const Object& crd, const ApplyOptions& options,
                             WatchDeps deps) {
  WatchOptions watch_options;
  watch_options.timeout = options.crd_timeout;
  auto established = WatchObject(
      client, info.CollectionPath(""), crd.name,
      [](const nlohmann::json* live) { return ReadyVerdict("CustomResourceDefinition", live); }, watch_options, deps);
  if (!established) return core::Fail(established.error());
  if (established->verdict.state != Verdict::State::kDone) {
    return core::Fail(
        core::Error::Make(core::ErrorKind::kDeadlineExceeded,
                          crd.Describe() + " was not Established in time: " + established->verdict.detail));
  }
  return {};
}

// Established is not yet discovered: for a moment the API server may still answer 404 for the
// new group version. Its kinds, and its schema, are forgotten and read again until served.
core::Status WaitDiscovered(Discovery& discovery, const Object& crd, const ApplyOptions& options, WatchDeps deps) {
  const auto& spec = core::ObjectAt(crd.json, "spec");
  std::string group = core::StringAt(spec, "group");
  std::string kind = core::StringAt(core::ObjectAt(spec, "names"), "kind");
  std::string version;
  for (const auto& entry : core::ArrayAt(spec, "versions")) {
    if (core::BoolAt(entry, "served", false)) {
      version = core::StringAt(entry, "name");
      break;
    }
  }
  if (version.empty() || kind.empty()) {
    discovery.Forget(group);
    return {};
  }
  // Every 100 ms until the timeout, then discovery's last word.
  core::PollOptions poll{std::chrono::milliseconds(100), 1.0, std::chrono::milliseconds(100), options.crd_timeout};
  poll.is_transient = [](const core::Error&) { return true; };
  poll.transient_failures = std::numeric_limits<int>::max();
  poll.on_timeout = core::OnTimeout::kLastError;
  auto served = core::PollUntil(
      [&]() -> core::Result<bool> {
        discovery.Forget(group);
        auto info = discovery.Lookup(group + "/" + version, kind);
        if (!info) return core::Fail(info.error());
        return true;
      },
      poll, {deps.clock, deps.sleeper, nullptr});
  if (!served && served.error().kind == core::ErrorKind::kCancelled) {
    return core::Fail(core::Error::Cancelled("interrupted waiting for " + kind + " to be served"));
  }
  return served;
}

}  // namespace

core::Result<std::vector<ApplyResult>> Apply(Client& client, Discovery& discovery, std::vector<Object> objects,
                                             const ApplyOptions& options, WatchDeps deps,
                                             const std::function<void(const ApplyResult&)>& on_applied) {
  objects = OrderForApply(std::move(objects));
  auto defined = KindsDefinedBy(objects);
  auto defined_here = [&](const Object& object) {
    auto it = defined.find(GroupOf(object.api_version));
    return it != defined.end() && it->second.count(object.kind) != 0;
  };
  // Resolve every kind, place every object and check it against its installed CRD up front, so
  // that an unknown kind or an invalid object stops the apply before any change.
  for (auto& object : objects) {
    if (defined_here(object)) continue;
    auto info = discovery.Lookup(object.api_version, object.kind);
    if (!info) {
      auto error = info.error();
      error.message = object.source + ": " + error.message;
      return core::Fail(error);
    }
    auto placed = Place(object, *info, options.ns, client.default_namespace());
    if (!placed) return core::Fail(placed.error());
    if (options.validate) {
      if (auto checked = CheckAgainstCrd(discovery, *info, object); !checked) return core::Fail(checked.error());
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
    auto placed = Place(object, *info, options.ns, client.default_namespace());
    if (!placed) return core::Fail(placed.error());
    // A kind whose CRD is in this batch can only be checked now that the CRD is established.
    if (options.validate && defined_here(object)) {
      if (auto checked = CheckAgainstCrd(discovery, *info, object); !checked) return core::Fail(checked.error());
    }
    auto result = SendApply(client, *info, object, options);
    if (!result) return core::Fail(result.error());
    if (object.kind == "CustomResourceDefinition" && !options.dry_run) {
      auto established = WaitEstablished(client, *info, object, options, deps);
      if (!established) return core::Fail(established.error());
      auto discovered = WaitDiscovered(discovery, object, options, deps);
      if (!discovered) return core::Fail(discovered.error());
    }
    if (on_applied) on_applied(*result);
    results.push_back(std::move(*result));
  }
  return results;
}

}  // namespace tputrain::k8s
