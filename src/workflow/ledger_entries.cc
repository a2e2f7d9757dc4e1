#include "tputrain/workflow/ledger_entries.h"

namespace tputrain::workflow {

namespace {

state::LedgerEntry K8sObjectEntry(const std::string& access_id, nlohmann::json access, const k8s::Object& object,
                                  bool owned) {
  state::LedgerEntry entry;
  entry.kind = state::ResourceKind::kK8sObject;
  entry.name = access_id + "|" + object.api_version + "|" + object.kind + "|" + object.ns + "|" + object.name;
  entry.owned = owned;
  entry.details = {{"api_version", object.api_version},
                   {"kind", object.kind},
                   {"namespace", object.ns},
                   {"name", object.name},
                   {"access", std::move(access)}};
  return entry;
}

}  // namespace

state::LedgerEntry K8sObjectEntry(const state::AccessRecord& access, const k8s::Object& object, bool owned) {
  return K8sObjectEntry(access.Id(), state::ToJson(access), object, owned);
}

core::Result<state::AccessRecord> AccessOf(const state::LedgerEntry& entry) {
  auto it = entry.details.find("access");
  if (it == entry.details.end()) {
    return core::Fail(
        core::Error::Internal("run ledger: " + entry.KindName() + " " + entry.name + ": no access record"));
  }
  return state::AccessRecordFromJson(*it, entry.KindName() + " " + entry.name + ": access");
}

RayJobTarget RayJobTarget::Direct(std::string address) {
  RayJobTarget target;
  target.address = std::move(address);
  return target;
}

RayJobTarget RayJobTarget::OnRayCluster(std::string name, std::string ns, state::AccessRecord access) {
  RayJobTarget target;
  target.raycluster = std::move(name);
  target.ns = std::move(ns);
  target.access = std::move(access);
  return target;
}

RayJobTarget RayJobTarget::OnTpuVmRay(gcp::tpu::NodeRef node, std::string via) {
  RayJobTarget target;
  target.tpu_vm = std::move(node);
  target.via = std::move(via);
  return target;
}

state::LedgerEntry RayJobEntry(const std::string& submission_id, const RayJobTarget& target) {
  state::LedgerEntry entry;
  entry.kind = state::ResourceKind::kRayJob;
  entry.name = submission_id;
  if (target.OnCluster()) {
    entry.details = {
        {"raycluster", target.raycluster}, {"namespace", target.ns}, {"access", state::ToJson(target.access)}};
  } else if (target.OnTpuVm()) {
    entry.details = {
        {"tpu_vm", {{"project", target.tpu_vm.project}, {"zone", target.tpu_vm.zone}, {"node", target.tpu_vm.node}}},
        {"via", target.via}};
  } else {
    entry.details = {{"address", target.address}};
  }
  return entry;
}

core::Result<RayJobTarget> RayJobTargetOf(const state::LedgerEntry& entry) {
  const auto& details = entry.details;
  const std::string field = entry.KindName() + " " + entry.name + ": details";
  auto text = [&](const char* key) -> core::Result<std::string> {
    auto it = details.find(key);
    if (it == details.end()) return std::string();
    if (!it->is_string()) return core::Fail(core::Error::Usage(field + "." + key + ": expected a string"));
    return it->get<std::string>();
  };
  if (!details.is_object()) return core::Fail(core::Error::Usage(field + ": expected an object"));
  if (auto tpu_vm = details.find("tpu_vm"); tpu_vm != details.end()) {
    const auto part = [&](const char* key) -> core::Result<std::string> {
      auto it = tpu_vm->is_object() ? tpu_vm->find(key) : tpu_vm->end();
      if (it == tpu_vm->end() || !it->is_string() || it->get<std::string>().empty()) {
        return core::Fail(core::Error::Usage(field + ".tpu_vm." + key + ": expected a string"));
      }
      return it->get<std::string>();
    };
    auto project = part("project");
    if (!project) return core::Fail(project.error());
    auto zone = part("zone");
    if (!zone) return core::Fail(zone.error());
    auto node = part("node");
    if (!node) return core::Fail(node.error());
    auto via = text("via");
    if (!via) return core::Fail(via.error());
    return RayJobTarget::OnTpuVmRay({*project, *zone, *node}, via->empty() ? "iap" : *via);
  }
  auto raycluster = text("raycluster");
  if (!raycluster) return core::Fail(raycluster.error());
  if (raycluster->empty()) {
    auto address = text("address");
    if (!address) return core::Fail(address.error());
    return RayJobTarget::Direct(*address);
  }
  auto ns = text("namespace");
  if (!ns) return core::Fail(ns.error());
  auto access = AccessOf(entry);
  if (!access) return core::Fail(access.error());
  return RayJobTarget::OnRayCluster(*raycluster, *ns, *access);
}

state::LedgerEntry ServedModelEntry(const serving::SaxModel& model, const SaxHttpTarget& target) {
  state::LedgerEntry entry;
  entry.kind = state::ResourceKind::kServedModel;
  entry.name =
      target.access.Id() + "|" + target.ns + "|" + target.service + ":" + std::to_string(target.port) + "|" + model.id;
  entry.details = {{"engine", "saxml"},
                   {"model", model.id},
                   {"model_path", model.model_path},
                   {"checkpoint", model.checkpoint},
                   {"replicas", model.replicas},
                   {"namespace", target.ns},
                   {"service", target.service},
                   {"port", target.port},
                   {"access", state::ToJson(target.access)}};
  return entry;
}

core::Result<ServedModelRecord> ServedModelOf(const state::LedgerEntry& entry) {
  const auto& details = entry.details;
  const std::string field = entry.KindName() + " " + entry.name + ": details";
  if (!details.is_object()) return core::Fail(core::Error::Usage(field + ": expected an object"));
  ServedModelRecord record;
  for (auto [key, into] : {std::pair<const char*, std::string*>{"model", &record.model.id},
                           {"model_path", &record.model.model_path},
                           {"checkpoint", &record.model.checkpoint},
                           {"namespace", &record.target.ns},
                           {"service", &record.target.service}}) {
    auto it = details.find(key);
    if (it == details.end() || !it->is_string()) {
      return core::Fail(core::Error::Usage(field + "." + key + ": expected a string"));
    }
    *into = it->get<std::string>();
  }
  for (auto [key, into] : {std::pair<const char*, int64_t*>{"replicas", &record.model.replicas}}) {
    auto it = details.find(key);
    if (it == details.end() || !it->is_number_integer()) {
      return core::Fail(core::Error::Usage(field + "." + key + ": expected an integer"));
    }
    *into = it->get<int64_t>();
  }
  auto port = details.find("port");
  if (port == details.end() || !port->is_number_integer() || port->get<int64_t>() < 1 || port->get<int64_t>() > 65535) {
    return core::Fail(core::Error::Usage(field + ".port: expected a port number"));
  }
  record.target.port = port->get<int>();
  auto access = AccessOf(entry);
  if (!access) return core::Fail(access.error());
  record.target.access = *access;
  return record;
}

core::Status LedgerRecorder::Creating(const state::LedgerEntry& entry) const {
  if (store == nullptr) return {};
  return store->RecordCreating(run_id, entry);
}

core::Status LedgerRecorder::Created(const state::LedgerEntry& entry) const {
  if (store == nullptr) return {};
  return store->RecordState(run_id, entry.kind, entry.name, state::EntryState::kCreated);
}

}  // namespace tputrain::workflow
