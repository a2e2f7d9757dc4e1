#include "tputrain/state/access_record.h"

namespace tputrain::state {
namespace {

core::Error WrongType(std::string_view field, std::string_view key, std::string_view expected) {
  auto error = core::Error::Usage(std::string(field) + "." + std::string(key) + ": expected " + std::string(expected));
  error.where = "ledger";
  return error;
}

}  // namespace

AccessRecord AccessRecord::Gke(std::string cluster_name) {
  AccessRecord access;
  access.gke_cluster = std::move(cluster_name);
  return access;
}

AccessRecord AccessRecord::Kubeconfig(std::string path, std::string context) {
  AccessRecord access;
  access.kubeconfig = std::move(path);
  access.context = std::move(context);
  return access;
}

std::string AccessRecord::Id() const { return IsGke() ? "gke:" + gke_cluster : "kubeconfig:" + context; }

nlohmann::json ToJson(const AccessRecord& access) {
  if (access.IsGke()) return {{"gke_cluster", access.gke_cluster}};
  return {{"kubeconfig", access.kubeconfig}, {"context", access.context}};
}

core::Result<AccessRecord> AccessRecordFromJson(const nlohmann::json& json, std::string_view field) {
  if (!json.is_object()) {
    auto error = core::Error::Usage(std::string(field) + ": expected an object");
    error.where = "ledger";
    return core::Fail(error);
  }
  AccessRecord access;
  for (auto [key, member] :
       {std::pair{"gke_cluster", &AccessRecord::gke_cluster}, std::pair{"kubeconfig", &AccessRecord::kubeconfig},
        std::pair{"context", &AccessRecord::context}}) {
    auto it = json.find(key);
    if (it == json.end()) continue;
    if (!it->is_string()) return core::Fail(WrongType(field, key, "a string"));
    access.*member = it->get<std::string>();
  }
  if (json.contains("gke_cluster") && access.gke_cluster.empty()) {
    return core::Fail(WrongType(field, "gke_cluster", "a cluster name projects/P/locations/L/clusters/C"));
  }
  return access;
}

}  // namespace tputrain::state
