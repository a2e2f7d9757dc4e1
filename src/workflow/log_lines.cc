// The pure parts of `tputrain logs`: TARGET, the container choice and the line prefixing.
#include <algorithm>
#include <cctype>
#include <map>

#include "tputrain/core/json_fields.h"
#include "tputrain/k8s/names.h"
#include "tputrain/workflow/logs.h"

namespace tputrain::workflow {
namespace {

using Kind = LogTarget::Kind;

// kubectl's resource names for each kind: singular, plural, short name and Kind.
const std::map<std::string, Kind, std::less<>>& KindNames() {
  static const std::map<std::string, Kind, std::less<>> kNames = {
      {"po", Kind::kPod},
      {"pod", Kind::kPod},
      {"pods", Kind::kPod},
      {"lws", Kind::kLeaderWorkerSet},
      {"leaderworkerset", Kind::kLeaderWorkerSet},
      {"leaderworkersets", Kind::kLeaderWorkerSet},
      {"jobset", Kind::kJobSet},
      {"jobsets", Kind::kJobSet},
      {"raycluster", Kind::kRayCluster},
      {"rayclusters", Kind::kRayCluster},
      {"job", Kind::kJob},
      {"jobs", Kind::kJob},
      {"deploy", Kind::kDeployment},
      {"deployment", Kind::kDeployment},
      {"deployments", Kind::kDeployment},
  };
  return kNames;
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

std::vector<std::string> Names(const nlohmann::json& containers) {
  std::vector<std::string> names;
  if (!containers.is_array()) return names;
  for (const auto& container : containers) {
    if (container.is_object() && container.contains("name") && container["name"].is_string()) {
      names.push_back(container["name"].get<std::string>());
    }
  }
  return names;
}

std::string Join(const std::vector<std::string>& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

}  // namespace

std::string LogTarget::Text() const {
  switch (kind) {
    case Kind::kPod:
      return "pod/" + name;
    case Kind::kLeaderWorkerSet:
      return "lws/" + name;
    case Kind::kJobSet:
      return "jobset/" + name;
    case Kind::kRayCluster:
      return "raycluster/" + name;
    case Kind::kJob:
      return "job/" + name;
    case Kind::kDeployment:
      return "deployment/" + name;
  }
  return name;
}

core::Result<LogTarget> ParseLogTarget(std::string_view text) {
  LogTarget target;
  auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    target.name = std::string(text);
  } else {
    auto kind_text = Lower(text.substr(0, slash));
    auto found = KindNames().find(kind_text);
    if (found == KindNames().end()) {
      return core::Fail(core::Error::Usage(
          "TARGET: unknown kind '" + std::string(text.substr(0, slash)) +
          "'; expected pod/NAME, lws/NAME, jobset/NAME, raycluster/NAME, job/NAME, deployment/NAME or a pod's NAME"));
    }
    target.kind = found->second;
    target.name = std::string(text.substr(slash + 1));
  }
  if (auto valid = k8s::CheckObjectName("TARGET", target.name); !valid) return core::Fail(valid.error());
  return target;
}

std::vector<std::string> PodSelectors(const LogTarget& target) {
  // The labels each operator puts on the pods it makes (notes/manifests.md, notes/ray.md).
  switch (target.kind) {
    case Kind::kLeaderWorkerSet:
      return {"leaderworkerset.sigs.k8s.io/name=" + target.name};
    case Kind::kJobSet:
      return {"jobset.sigs.k8s.io/jobset-name=" + target.name};
    case Kind::kRayCluster:
      return {"ray.io/cluster=" + target.name};
    case Kind::kJob:
      return {"batch.kubernetes.io/job-name=" + target.name, "job-name=" + target.name};
    case Kind::kPod:
    case Kind::kDeployment:
      return {};
  }
  return {};
}

core::Result<std::string> ChooseContainer(const nlohmann::json& pod, const std::string& requested) {
  const auto& metadata = core::ObjectAt(pod, "metadata");
  std::string pod_name = core::StringAt(metadata, "name");
  const auto& spec = core::ObjectAt(pod, "spec");
  auto containers = Names(core::ArrayAt(spec, "containers"));
  if (!requested.empty()) {
    auto all = containers;
    for (const char* field : {"initContainers", "ephemeralContainers"}) {
      for (auto& name : Names(core::ArrayAt(spec, field))) all.push_back(std::move(name));
    }
    if (std::find(all.begin(), all.end(), requested) != all.end()) return requested;
    return core::Fail(core::Error::Usage("-c/--container: pod/" + pod_name + " has no container '" + requested +
                                         "'; its containers: " + Join(containers)));
  }
  // As kubectl: the pod's own choice first (a JetStream leader names jax-tpu of its four).
  const std::string preferred =
      core::StringAt(core::ObjectAt(metadata, "annotations"), "kubectl.kubernetes.io/default-container");
  if (std::find(containers.begin(), containers.end(), preferred) != containers.end()) return preferred;
  if (containers.size() == 1) return containers.front();
  if (containers.empty()) return core::Fail(core::Error::Usage("pod/" + pod_name + " has no containers"));
  std::string line = "-c/--container: pod/" + pod_name + " has " + std::to_string(containers.size()) +
                     " containers, choose one of: " + Join(containers);
  if (!preferred.empty())
    line += " (its kubectl.kubernetes.io/default-container, '" + preferred + "', is none of them)";
  return core::Fail(core::Error::Usage(line));
}

std::string LinePrefix(const std::string& pod, const std::string& container) {
  return "[pod/" + pod + "/" + container + "] ";
}

void LineSink::Write(std::string_view lines) {
  std::lock_guard lock(mutex_);
  write_(lines);
}

void LineSink::Notice(std::string_view line) {
  std::lock_guard lock(mutex_);
  if (notice_) notice_(line);
}

void LineJoiner::Add(std::string_view chunk) {
  // Complete lines are gathered and written together: one lock per chunk, not per line.
  // pending_ holds the start of a line, without its newline, never more than max_line_.
  std::string out;
  while (!chunk.empty()) {
    auto newline = chunk.find('\n');
    size_t line_end = newline == std::string_view::npos ? chunk.size() : newline;
    size_t room = max_line_ - pending_.size();
    if (line_end > room) {
      pending_.append(chunk.substr(0, room));
      chunk.remove_prefix(room);
      out += prefix_ + pending_ + "\n";
      pending_.clear();
      continue;
    }
    pending_.append(chunk.substr(0, line_end));
    chunk.remove_prefix(line_end);
    if (newline != std::string_view::npos) {
      out += prefix_ + pending_ + "\n";
      pending_.clear();
      chunk.remove_prefix(1);
    }
  }
  if (!out.empty()) sink_.Write(out);
}

void LineJoiner::Finish() {
  if (pending_.empty()) return;
  sink_.Write(prefix_ + pending_ + "\n");
  pending_.clear();
}

}  // namespace tputrain::workflow
