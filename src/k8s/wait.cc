#include "tputrain/k8s/wait.h"

#include <algorithm>
#include <cctype>

#include "slice_placement.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/readiness.h"

namespace tputrain::k8s {
namespace {

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// An event time as a key that sorts in time order: the API server writes RFC 3339 in UTC, with
// (eventTime, MicroTime) or without (lastTimestamp) a fraction, which plain strings misorder.
std::string SortableTime(const std::string& time) {
  if (time.size() < 19) return time;
  std::string fraction;
  if (time.size() > 20 && time[19] == '.') {
    for (size_t i = 20; i < time.size() && std::isdigit(static_cast<unsigned char>(time[i])) != 0; ++i) {
      fraction += time[i];
    }
  }
  fraction.resize(9, '0');
  return time.substr(0, 19) + "." + fraction;
}

// When an event last happened, in either form the API serves. core/v1 writers (kubelet,
// controllers) set lastTimestamp; events.k8s.io/v1 writers (the scheduler) set only eventTime,
// and series.lastObservedTime once it repeats, leaving lastTimestamp null.
std::string EventTime(const nlohmann::json& event) {
  std::string latest;
  for (const auto& time : {core::StringAt(event, "lastTimestamp"), core::StringAt(event, "eventTime"),
                           core::StringAt(core::ObjectAt(event, "series"), "lastObservedTime")}) {
    if (!time.empty() && SortableTime(time) > latest) latest = SortableTime(time);
  }
  if (latest.empty()) latest = SortableTime(core::StringAt(core::ObjectAt(event, "metadata"), "creationTimestamp"));
  return latest;
}

// The newest event about object `name` of `kind`: "Reason: message".
std::string LatestEvent(Client& client, const std::string& ns, const std::string& kind, const std::string& name) {
  std::string selector = http::UrlEncode("involvedObject.kind=" + kind + ",involvedObject.name=" + name);
  auto events = client.GetJson("/api/v1/namespaces/" + http::PathSegment(ns) + "/events?fieldSelector=" + selector, "");
  if (!events) return "";
  const nlohmann::json* latest = nullptr;
  std::string latest_time;
  for (const auto& event : core::ArrayAt(*events, "items")) {
    std::string time = EventTime(event);
    if (latest == nullptr || time >= latest_time) {
      latest = &event;
      latest_time = time;
    }
  }
  if (latest == nullptr) return "";
  // An events.k8s.io event's `note` is served as core/v1 `message`.
  return core::StringAt(*latest, "reason") + ": " + core::StringAt(*latest, "message");
}

}  // namespace

core::Result<ObjectRef> ParseObjectRef(const std::string& text, Client& client) {
  auto slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) {
    return core::Fail(core::Error::Usage("expected KIND/NAME (e.g. raycluster/ray), got '" + text + "'"));
  }
  std::string kind_text = Lower(text.substr(0, slash));
  std::string name = text.substr(slash + 1);
  std::string group_filter;
  if (auto dot = kind_text.find('.'); dot != std::string::npos) {
    group_filter = kind_text.substr(dot + 1);
    kind_text = kind_text.substr(0, dot);
  }
  // The preferred version of every group, then each resource's names and short names.
  auto groups = client.GetJson("/apis", "API discovery");
  if (!groups) return core::Fail(groups.error());
  std::vector<std::string> preferred{"v1"};
  for (const auto& group : core::ArrayAt(*groups, "groups")) {
    if (auto version = core::StringAt(core::ObjectAt(group, "preferredVersion"), "groupVersion"); !version.empty()) {
      preferred.push_back(version);
    }
  }
  for (const auto& group_version : preferred) {
    std::string group =
        group_version.find('/') == std::string::npos ? "" : group_version.substr(0, group_version.find('/'));
    if (!group_filter.empty() && group != group_filter) continue;
    std::string path = group.empty() ? "/api/v1" : "/apis/" + group_version;
    auto list = client.GetJson(path, "API discovery");
    if (!list) continue;
    for (const auto& resource : core::ArrayAt(*list, "resources")) {
      std::string plural = core::StringAt(resource, "name");
      if (plural.find('/') != std::string::npos) continue;
      bool match = plural == kind_text || Lower(core::StringAt(resource, "kind")) == kind_text ||
                   core::StringAt(resource, "singularName") == kind_text;
      for (const auto& short_name : core::ArrayAt(resource, "shortNames")) {
        if (short_name == kind_text) match = true;
      }
      if (match) return ObjectRef{group_version, core::StringAt(resource, "kind"), name};
    }
  }
  return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                      "the cluster serves no kind called '" + text.substr(0, slash) + "'"));
}

std::string ExplainPods(Client& client, const std::string& ns, std::string_view kind, const nlohmann::json& object) {
  std::string selector = kind == "Pod" ? "" : PodSelectorFor(kind, object);
  std::vector<nlohmann::json> pods;
  if (kind == "Pod") {
    if (object.is_object()) pods.push_back(object);
  } else if (!selector.empty()) {
    auto list = client.GetJson(
        "/api/v1/namespaces/" + http::PathSegment(ns) + "/pods?labelSelector=" + http::UrlEncode(selector), "");
    if (list) {
      for (const auto& pod : core::ArrayAt(*list, "items")) pods.push_back(pod);
    }
  }
  std::string lines;
  int shown = 0;
  int not_ready = 0;
  for (const auto& pod : pods) {
    if (ReadyVerdict("Pod", &pod).state == Verdict::State::kDone) continue;
    ++not_ready;
    if (shown == 5) continue;
    ++shown;
    std::string name = core::StringAt(core::ObjectAt(pod, "metadata"), "name");
    std::string phase = core::StringAt(core::ObjectAt(pod, "status"), "phase");
    if (phase.empty()) phase = "Pending";
    std::string line = "pod " + name + " " + phase;
    if (auto event = LatestEvent(client, ns, "Pod", name); !event.empty()) line += ": " + event;
    lines += "\n  " + line;
  }
  if (not_ready > shown) lines += "\n  ... and " + std::to_string(not_ready - shown) + " more pods not ready";
  if (pods.empty() && kind != "Pod" && object.is_object()) {
    std::string name = core::StringAt(core::ObjectAt(object, "metadata"), "name");
    if (auto event = LatestEvent(client, ns, std::string(kind), name); !event.empty()) {
      lines += "\n  latest event: " + event;
    } else if (!selector.empty()) {
      lines += "\n  no pods with " + selector + " (is the operator running?)";
    }
  }
  return lines;
}

core::Result<WaitResult> WaitReady(Client& client, Discovery& discovery, const ObjectRef& ref, const std::string& ns,
                                   const WatchOptions& options, WatchDeps deps) {
  auto info = discovery.Lookup(ref.api_version, ref.kind);
  if (!info) return core::Fail(info.error());
  std::string kind = ref.kind;
  auto outcome = WatchObject(
      client, info->CollectionPath(ns), ref.name,
      [&](const nlohmann::json* object) { return ReadyVerdict(kind, object); }, options, deps);
  if (!outcome) return core::Fail(outcome.error());
  std::string what = ref.kind + " " + (info->namespaced ? ns + "/" : "") + ref.name;
  if (outcome->verdict.state == Verdict::State::kFailed) {
    auto error = core::Error::Make(core::ErrorKind::kFailedPrecondition, what + " failed: " + outcome->verdict.detail);
    error.where = "kubernetes";
    return core::Fail(error);
  }
  if (outcome->verdict.state == Verdict::State::kWaiting) {
    std::string message = "timed out after " + core::FormatDuration(options.timeout) + " waiting for " + what +
                          " to be ready: " + outcome->verdict.detail;
    if (!outcome->object.is_null()) message += ExplainPods(client, ns, kind, outcome->object);
    auto error = core::Error::Make(core::ErrorKind::kDeadlineExceeded, message);
    error.where = "kubernetes";
    return core::Fail(error);
  }
  WaitResult result{outcome->object, outcome->stats, {}};
  if (kind == "RayCluster") {
    // Ready by KubeRay's account says nothing of where the slices landed.
    auto placement = CheckRaySlicePlacement(client, ns, outcome->object);
    if (!placement && placement.error().kind == core::ErrorKind::kFailedPrecondition) {
      auto error = placement.error();
      error.message = what + " is ready, but its slice " + error.message;
      error.where = "kubernetes";
      return core::Fail(error);
    }
    if (!placement) {
      result.notes.push_back(what +
                             ": the node pools of its TPU slices were not checked: " + placement.error().message);
    } else {
      for (const auto& note : placement->notes) result.notes.push_back(what + ": " + note);
    }
  }
  return result;
}

}  // namespace tputrain::k8s
