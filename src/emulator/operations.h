#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "tputrain/emulator/handlers.h"

// The one registry of work the emulated APIs finish later: long-running operations (GKE's, Cloud
// TPU's, Compute's), Cloud Build's phases, queued resources through their states. Each is a record
// in its API's section of the world, shown as its API shows it; what the registry needs rides in
// the record's private "_timer":
//   {"due": ms}        its next step is due then
//   {"held": true}     a `stuck` fault holds it for ever
//   {"waiting": true, "order": N[, "until": ms]}  it waits for something other than time (capacity):
//                      stepped at each Advance, oldest order first, and at `until` at the latest
// and no timer once it has ended. `Advance` takes every step due, in time order, each at its own
// time, however late a request notices it.
namespace tputrain::emulator {

// A kind of timed record: where its records live and how one takes its next step at `at_ms`
// (ending as its API ends, or scheduling the next step with ScheduleStep/WaitStep).
struct TimedKind {
  const char* section;
  void (*step)(nlohmann::json& world, nlohmann::json& record, int64_t at_ms, const EmulatorConfig& config);
};

// Every kind, in one place.
const std::vector<TimedKind>& TimedKinds();

// Arms a new operation's timer as the call's fault says: due after the configured latency; a
// `stuck` fault makes it due after stuck_for, or held for ever; a `stockout` fault is kept on the
// record (IsStockoutFault) for its API to end it with.
void StartOperationTimer(nlohmann::json& record, const Call& call);
bool IsStockoutFault(const nlohmann::json& record);

// An operation its API answers done at once (Artifact Registry's, Service Usage's) runs for the
// latency `--op-latency METHOD=...` names for the call, if it names one: not done until then,
// its response held back. The operation as its API shows it: without what the registry keeps.
void FinishLater(nlohmann::json& op, const Call& call);
nlohmann::json PublicOperation(const nlohmann::json& op);

void ScheduleStep(nlohmann::json& record, int64_t due_ms);
void WaitStep(nlohmann::json& record, int64_t order = 0, std::optional<int64_t> until_ms = std::nullopt);
void HoldStep(nlohmann::json& record);
void EndSteps(nlohmann::json& record);
bool HasPendingStep(const nlohmann::json& record);

// Takes every step due by `now_ms`; true when anything changed.
bool Advance(nlohmann::json& world, int64_t now_ms, const EmulatorConfig& config);

}  // namespace tputrain::emulator
