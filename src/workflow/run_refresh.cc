#include "tputrain/workflow/run_refresh.h"

#include <optional>

#include "entry_details.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/tpu/client.h"

namespace tputrain::workflow {
namespace {

using state::EntryState;
using state::ResourceKind;

struct Observation {
  std::string word;
  std::optional<EntryState> state;  // none: the API's state says nothing about the entry's
};

template <typename T>
core::Result<Observation> Observe(const core::Result<T>& read, const auto& classify) {
  if (!read) {
    if (read.error().kind == core::ErrorKind::kNotFound) return Observation{"NOT_FOUND", EntryState::kDeleted};
    return core::Fail(read.error());
  }
  return classify(*read);
}

core::Result<Observation> ObserveEntry(http::Transport& transport, const ApiEndpoints& endpoints,
                                       const state::LedgerEntry& entry) {
  if (entry.kind == ResourceKind::kTpuVm) {
    gcp::tpu::Client client(transport, endpoints.tpu);
    return Observe(client.GetNode(internal::TpuNodeOf(entry)), [](const gcp::tpu::Node& node) {
      if (node.state == "PREEMPTED") return Observation{node.state, EntryState::kPreempted};
      if (node.state == "READY") return Observation{node.state, EntryState::kCreated};
      return Observation{node.state, std::nullopt};
    });
  }
  if (entry.kind == ResourceKind::kQueuedResource) {
    gcp::tpu::Client client(transport, endpoints.tpu);
    return Observe(client.GetQueuedResource(internal::QueuedResourceOf(entry)),
                   [](const gcp::tpu::QueuedResource& resource) {
                     using gcp::tpu::QueuedResourceState;
                     std::string word(gcp::tpu::QueuedResourceStateName(resource.state));
                     switch (resource.state) {
                       case QueuedResourceState::kSuspending:
                       case QueuedResourceState::kSuspended:
                         return Observation{word, EntryState::kPreempted};
                       case QueuedResourceState::kFailed:
                         return Observation{word, EntryState::kFailed};
                       case QueuedResourceState::kActive:
                         return Observation{word, EntryState::kCreated};
                       default:
                         return Observation{word, std::nullopt};
                     }
                   });
  }
  gcp::container::Client client(transport, endpoints.container);
  return Observe(client.GetNodePool(internal::NodePoolOf(entry)), [](const gcp::container::NodePool& pool) {
    if (pool.status == "ERROR") return Observation{pool.status, EntryState::kFailed};
    return Observation{pool.status, std::nullopt};
  });
}

bool Refreshable(const state::LedgerEntry& entry) {
  const bool kind = entry.kind == ResourceKind::kTpuVm || entry.kind == ResourceKind::kQueuedResource ||
                    entry.kind == ResourceKind::kNodePool;
  const bool settled = entry.state == EntryState::kCreated || entry.state == EntryState::kFailed ||
                       entry.state == EntryState::kPreempted;
  return kind && settled;
}

}  // namespace

core::Result<std::vector<RefreshedEntry>> RefreshRun(http::Transport& transport, const ApiEndpoints& endpoints,
                                                     state::LedgerStore& ledger, const std::string& run_id,
                                                     bool record) {
  auto loaded = ledger.Load(run_id);
  if (!loaded) return core::Fail(loaded.error());
  std::vector<RefreshedEntry> refreshed;
  for (const auto& entry : loaded->entries) {
    if (!Refreshable(entry)) continue;
    auto observed = ObserveEntry(transport, endpoints, entry);
    if (!observed) return core::Fail(observed.error());
    // A preempted VM that is READY again was recreated by hand: that is a new resource the
    // run did not make ready, so its entry keeps saying what the run saw.
    EntryState after = observed->state.value_or(entry.state);
    if (entry.state == EntryState::kPreempted && after == EntryState::kCreated) after = entry.state;
    if (entry.state == EntryState::kFailed && after == EntryState::kCreated) after = entry.state;
    if (after != entry.state && record) {
      if (auto recorded = ledger.RecordState(run_id, entry.kind, entry.name, after); !recorded)
        return core::Fail(recorded.error());
    }
    refreshed.push_back({entry.kind, entry.name, entry.state, after, observed->word});
  }
  return refreshed;
}

core::Result<std::vector<RefreshedEntry>> RefreshRun(Root& root, state::LedgerStore& ledger,
                                                     const std::string& run_id) {
  auto google = root.Google();
  if (!google) return core::Fail(google.error());
  return RefreshRun(**google, root.Provision(*google).endpoints, ledger, run_id, !root.dry_run());
}

}  // namespace tputrain::workflow
