#include "operations.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace tputrain::emulator {

using nlohmann::json;

namespace {

constexpr char kTimer[] = "_timer";
// A step that schedules itself again at once would spin: no record takes more steps per Advance.
constexpr int kMaxStepsPerAdvance = 1000;

// An operation FinishLater held back: done now, with the response it held.
void StepFinishLater(json&, json& op, int64_t, const EmulatorConfig&) {
  op["done"] = true;
  if (op.contains("_response")) {
    op["response"] = std::move(op["_response"]);
    op.erase("_response");
  }
  op.erase(kTimer);
}

struct Due {
  int64_t at;
  int64_t order;
  size_t kind;
  std::string key;
  bool operator<(const Due& other) const {
    return std::tie(at, order, kind, key) < std::tie(other.at, other.order, other.kind, other.key);
  }
};

// What is due by `now_ms`: scheduled steps at their time, waiting ones now.
std::vector<Due> Collect(const json& world, int64_t now_ms) {
  std::vector<Due> due;
  const auto& kinds = TimedKinds();
  for (size_t kind = 0; kind < kinds.size(); ++kind) {
    auto section = world.find(kinds[kind].section);
    if (section == world.end() || !section->is_object()) continue;
    for (const auto& [key, record] : section->items()) {
      auto timer = record.find(kTimer);
      if (timer == record.end() || !timer->is_object()) continue;
      if (timer->value("waiting", false)) {
        // Now, or at its deadline when that has passed: what it waited for is judged as of then.
        const int64_t until = timer->value("until", now_ms);
        due.push_back({std::min(until, now_ms), timer->value("order", int64_t{0}), kind, key});
      } else if (auto at = timer->find("due"); at != timer->end() && at->is_number_integer() && *at <= now_ms) {
        due.push_back({at->get<int64_t>(), 0, kind, key});
      }
    }
  }
  std::sort(due.begin(), due.end());
  return due;
}

}  // namespace

const std::vector<TimedKind>& TimedKinds() {
  static const std::vector<TimedKind> kinds = {
      {"containerOperations", StepContainerOperation},
      {"tpuOperations", StepTpuOperation},
      {"queuedResources", StepQueuedResource},
      {"computeOperations", StepComputeOperation},
      {"builds", StepBuild},
      {"artifactOperations", StepFinishLater},
      {"serviceOperations", StepFinishLater},
  };
  return kinds;
}

void ScheduleStep(json& record, int64_t due_ms) { record[kTimer] = {{"due", due_ms}}; }
void WaitStep(json& record, int64_t order, std::optional<int64_t> until_ms) {
  record[kTimer] = {{"waiting", true}, {"order", order}};
  if (until_ms) record[kTimer]["until"] = *until_ms;
}
void HoldStep(json& record) { record[kTimer] = {{"held", true}}; }
void EndSteps(json& record) { record.erase(kTimer); }
bool HasPendingStep(const json& record) { return record.contains(kTimer); }

void StartOperationTimer(json& record, const Call& call) {
  ScheduleStep(record, call.now_ms + call.config.LatencyOf(call.method_id).count());
  if (call.op_fault == FaultAction::kStuck) {
    if (call.config.stuck_for.count() > 0) {
      ScheduleStep(record, call.now_ms + call.config.stuck_for.count());
    } else {
      HoldStep(record);
    }
  }
  if (call.op_fault == FaultAction::kStockout) record["_fault"] = "stockout";
}

void FinishLater(json& op, const Call& call) {
  const auto latency = call.config.NamedLatencyOf(call.method_id);
  if (!latency || latency->count() == 0 || !op.value("done", false)) return;
  op["done"] = false;
  if (op.contains("response")) {
    op["_response"] = std::move(op["response"]);
    op.erase("response");
  }
  ScheduleStep(op, call.now_ms + latency->count());
}

json PublicOperation(const json& op) {
  json shown = op;
  shown.erase(kTimer);
  shown.erase("_response");
  return shown;
}

bool IsStockoutFault(const json& record) { return record.value("_fault", "") == "stockout"; }

bool Advance(json& world, int64_t now_ms, const EmulatorConfig& config) {
  bool changed = false;
  // Each round takes what is due; a step may schedule another that is due already (a build's
  // next phase), which the next round takes.
  for (int round = 0; round < kMaxStepsPerAdvance; ++round) {
    auto due = Collect(world, now_ms);
    if (due.empty()) break;
    bool stepped = false;
    for (const auto& item : due) {
      const TimedKind& kind = TimedKinds()[item.kind];
      auto& section = world[kind.section];
      auto record = section.find(item.key);
      if (record == section.end()) continue;  // an earlier step removed it
      json before = (*record)[kTimer];
      kind.step(world, *record, item.at, config);
      // A waiting record that is still waiting has not moved: it does not count as a change.
      const bool still_waiting =
          before.value("waiting", false) && record->contains(kTimer) && (*record)[kTimer] == before;
      if (!still_waiting) stepped = true;
    }
    if (!stepped) break;
    changed = true;
  }
  return changed;
}

}  // namespace tputrain::emulator
