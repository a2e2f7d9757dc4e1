#include <catch2/catch.hpp>

#include "operations.h"
#include "tputrain/emulator/api.h"
#include "tputrain/emulator/schema.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;

json ComputeOperation(const std::string& target) {
  return {{"status", "RUNNING"}, {"operationType", "insert"}, {"targetLink", target}};
}

TEST_CASE("operations: a late Advance ends each operation at its own due time, earliest first") {
  json world;
  json late = ComputeOperation("b");
  json early = ComputeOperation("a");
  ScheduleStep(late, 5000);
  ScheduleStep(early, 1000);
  world["computeOperations"]["late"] = late;
  world["computeOperations"]["early"] = early;
  EmulatorConfig config;

  CHECK_FALSE(Advance(world, 999, config));
  CHECK(world["computeOperations"]["early"]["status"] == "RUNNING");

  CHECK(Advance(world, 60'000, config));
  CHECK(world["computeOperations"]["early"]["status"] == "DONE");
  CHECK(world["computeOperations"]["early"]["endTime"] == Rfc3339(1000));
  CHECK(world["computeOperations"]["late"]["endTime"] == Rfc3339(5000));
  CHECK_FALSE(HasPendingStep(world["computeOperations"]["late"]));
  CHECK_FALSE(Advance(world, 120'000, config));  // nothing left to take
}

TEST_CASE("operations: a held step is never taken, and a record that still waits is no change") {
  json world;
  json held = ComputeOperation("held");
  HoldStep(held);
  world["computeOperations"]["held"] = held;
  // A queued resource that waits for chips the zone does not have is asked at every Advance.
  json queued = {{"name", "projects/p/locations/us-east5-a/queuedResources/q"},
                 {"state", {{"state", "WAITING_FOR_RESOURCES"}}},
                 {"tpu",
                  {{"nodeSpec", json::array({{{"parent", "projects/p/locations/us-east5-a"},
                                              {"nodeId", "q"},
                                              {"node", {{"acceleratorType", "v6e-8"}}}}})}}}};
  WaitStep(queued);
  world["capacity"]["chips"]["us-east5-a/v6e/on-demand"] = 0;
  world["queuedResources"]["q"] = queued;
  EmulatorConfig config;

  CHECK_FALSE(Advance(world, 1'000'000'000, config));
  CHECK(world["computeOperations"]["held"]["status"] == "RUNNING");
  CHECK(world["queuedResources"]["q"]["state"]["state"] == "WAITING_FOR_RESOURCES");
  CHECK(HasPendingStep(world["queuedResources"]["q"]));
}

TEST_CASE("operations: a stuck fault holds the operation unless stuck_for bounds it; a stockout is kept") {
  json world;
  EmulatorConfig config;
  config.op_latency = std::chrono::milliseconds(2000);
  ApiRequest request;
  auto schemas = SchemaSet::Builtin().value();
  Call call{request, {}, "compute.firewalls.insert", 100, std::nullopt, world, schemas, config};

  json normal;
  StartOperationTimer(normal, call);
  CHECK(normal["_timer"]["due"] == 2100);

  call.op_fault = FaultAction::kStuck;
  json held;
  StartOperationTimer(held, call);
  CHECK(held["_timer"]["held"] == true);

  config.stuck_for = std::chrono::milliseconds(50'000);
  json bounded;
  StartOperationTimer(bounded, call);
  CHECK(bounded["_timer"]["due"] == 50'100);

  call.op_fault = FaultAction::kStockout;
  json stockout;
  StartOperationTimer(stockout, call);
  CHECK(IsStockoutFault(stockout));
  CHECK_FALSE(IsStockoutFault(normal));
}

}  // namespace
}  // namespace tputrain::emulator
