// One capacity choice per slice: --capacity and its short forms, the reservation forms GKE takes,
// and what a node pool sends for each choice.
#include <catch2/catch.hpp>

#include "tputrain/gcp/container/types.h"
#include "tputrain/workflow/capacity.h"
#include "tputrain/workflow/expiry.h"
#include "tputrain/workflow/node_pools.h"
#include "tputrain/workflow/zone_failover.h"

namespace tputrain::workflow {
namespace {

std::string UsageOf(const CapacityFlags& flags) {
  auto resolved = ResolveCapacity(flags);
  REQUIRE_FALSE(resolved);
  CHECK(core::IsUsageError(resolved.error()));
  return resolved.error().message;
}

TEST_CASE("--capacity, --spot and --reservation name one choice; two are one usage line naming the flag") {
  CHECK(ResolveCapacity({})->mode == CapacityMode::kOnDemand);
  CHECK(ResolveCapacity({"spot"})->mode == CapacityMode::kSpot);
  CHECK(ResolveCapacity({"", true})->mode == CapacityMode::kSpot);
  CHECK(ResolveCapacity({"spot", true})->mode == CapacityMode::kSpot);
  auto reserved = ResolveCapacity({"", false, "projects/shared-prj/reservations/r1"});
  REQUIRE(reserved);
  CHECK(reserved->mode == CapacityMode::kReservation);
  CHECK(reserved->reservation == "projects/shared-prj/reservations/r1");
  CHECK(ResolveCapacity({"flex-start", false, "", "2h"})->max_run_duration == std::chrono::hours(2));

  CHECK(UsageOf({"cheap"}) == "--capacity: expected on-demand, spot, reservation or flex-start, got 'cheap'");
  CHECK(UsageOf({"", true, "r1"}).rfind("--spot: conflicts with --reservation", 0) == 0);
  CHECK(UsageOf({"flex-start", true}).rfind("--spot: conflicts with --capacity flex-start", 0) == 0);
  CHECK(UsageOf({"on-demand", false, "r1"}).rfind("--reservation: conflicts with --capacity on-demand", 0) == 0);
  CHECK(UsageOf({"reservation"}) == "--capacity reservation: name the reservation with --reservation NAME");
  CHECK(UsageOf({"spot", false, "", "1h"}) == "--max-run-duration: only with --capacity flex-start");
  CHECK(UsageOf({"flex-start", false, "", "8d"}).rfind("--max-run-duration: expected a duration", 0) == 0);
  CHECK(UsageOf({"flex-start", false, "", "169h"}) ==
        "--max-run-duration: expected from 1s to 7 days (168h), got '169h'");
  CHECK(UsageOf({"flex-start", false, "", "", true}).rfind("--enable-queued-provisioning: GKE queues", 0) == 0);
}

TEST_CASE("a reservation is a name, a project's path, or a block or sub-block of it; nothing else") {
  auto block = ParseReservation("projects/my-proj/reservations/r1/reservationBlocks/b2/reservationSubBlocks/s3");
  REQUIRE(block);
  CHECK(block->project == "my-proj");
  CHECK(block->reservation == "r1");
  CHECK(block->block == "b2");
  CHECK(block->sub_block == "s3");
  CHECK(ParseReservation("r1")->project.empty());
  CHECK(ParseReservation("projects/example.com:my-proj/reservations/r1"));
  for (const char* bad :
       {"", "R1", "r1/", "projects/P/reservations/r1", "projects/-p/reservations/r1", "projects/my-proj/reservations",
        "projects/my-proj/zones/z/reservations/r1", "projects/my-proj/reservations/r1/blocks/b",
        "projects/my-proj/reservations/r1/reservationBlocks/b/reservationSubBlocks",
        "projects/my-proj/reservations/r1/reservationBlocks/b/reservationSubBlocks/s/x", "r1\nx", "../r1", "r1?x=1"}) {
    INFO(bad);
    auto parsed = ParseReservation(bad);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message.rfind("--reservation: expected a reservation name", 0) == 0);
  }
}

TEST_CASE("each choice sends gcloud's fields; flex-start starts at 0 nodes and grows to the slice's hosts") {
  TpuPoolRequest request;
  request.tpu_type = "v6e-16";
  auto body = [&]() {
    auto pools = NodePoolsFor("p", request);
    REQUIRE(pools);
    return gcp::container::NodePoolToJson(pools->front());
  };
  auto on_demand = body();
  CHECK_FALSE(on_demand["config"].contains("spot"));
  CHECK_FALSE(on_demand["config"].contains("reservationAffinity"));
  CHECK(on_demand["initialNodeCount"] == 4);

  request.capacity = {"spot"};
  CHECK(body()["config"]["spot"] == true);

  request.capacity = {"", false, "projects/my-proj/reservations/r1/reservationBlocks/b2"};
  CHECK(body()["config"]["reservationAffinity"]["values"][0] ==
        "projects/my-proj/reservations/r1/reservationBlocks/b2");

  request.capacity = {"flex-start", false, "", "90m"};
  auto flex = body();
  CHECK(flex["initialNodeCount"] == 0);
  CHECK(flex["config"]["flexStart"] == true);
  CHECK(flex["config"]["maxRunDuration"] == "5400s");
  CHECK(flex["config"]["reservationAffinity"] == nlohmann::json{{"consumeReservationType", "NO_RESERVATION"}});
  CHECK(flex["management"]["autoRepair"] == false);
  CHECK(flex["autoscaling"] ==
        nlohmann::json{{"enabled", true}, {"locationPolicy", "ANY"}, {"maxNodeCount", 4}, {"minNodeCount", 0}});
  CHECK(flex["placementPolicy"]["tpuTopology"] == "4x4");
}

TEST_CASE("a pool's capacity mode from GKE's fields: Spot, then a reservation, then flex-start") {
  CHECK(PoolCapacityMode(false, false, false) == CapacityMode::kOnDemand);
  CHECK(PoolCapacityMode(true, false, false) == CapacityMode::kSpot);
  CHECK(PoolCapacityMode(false, true, false) == CapacityMode::kReservation);
  CHECK(PoolCapacityMode(false, false, true) == CapacityMode::kFlexStart);
  CHECK(CapacityModeName(CapacityMode::kFlexStart) == "flex-start");
}

TEST_CASE("--zones is split here: an empty element is refused, not dropped; a --zone it leaves out is refused") {
  CHECK(*ZonesOf({"us-east5-a,us-east5-b"}) == std::vector<std::string>{"us-east5-a", "us-east5-b"});
  CHECK(*ZonesOf({"us-east5-a", "us-east5-c"}) == std::vector<std::string>{"us-east5-a", "us-east5-c"});
  for (const std::vector<std::string>& given : std::vector<std::vector<std::string>>{
           {"us-east5-a,"}, {",us-east5-a"}, {"us-east5-a,,us-east5-b"}, {""}, {"us-east5-a", ""}}) {
    auto zones = ZonesOf(given);
    REQUIRE_FALSE(zones);
    CHECK(core::IsUsageError(zones.error()));
    CHECK(zones.error().message.rfind("--zones: expected zones separated by commas", 0) == 0);
  }
  CHECK(ZonesOf({"auto,us-east5-a"}).error().message == "--zones: auto stands alone (the zones that offer the type)");

  auto failover = ResolveFailover({{"us-east5-a,us-east5-b"}}, "");
  REQUIRE(failover);
  CHECK(failover->zones == std::vector<std::string>{"us-east5-a", "us-east5-b"});
  CHECK(ResolveFailover({{"auto"}}, "")->auto_zones);
  CHECK_FALSE(ResolveFailover({{"us-east5-a,"}}, ""));

  FailoverFlags beside_zone{{"us-east5-a,us-east5-c"}};
  beside_zone.replaced_zone = "us-east5-b";
  auto dropped = ResolveFailover(beside_zone, "");
  REQUIRE_FALSE(dropped);
  CHECK(dropped.error().message ==
        "--zones: replaces --zone us-east5-b, which it does not list; give the zones to try in --zones alone");
  beside_zone.replaced_zone = "us-east5-c";  // listed: nothing is dropped
  CHECK(ResolveFailover(beside_zone, ""));
}

TEST_CASE("a queued resource's --valid-after/--valid-until window is one: it ends after it starts") {
  TpuVmCapacityFlags flags;
  flags.queued = true;
  flags.valid_after = "1h";
  flags.valid_until = "3h";
  auto window = ResolveTpuVmCapacity(flags, "p", "us-east5-a");
  REQUIRE(window);
  CHECK(window->queueing.valid_after_duration == "3600s");
  CHECK(window->queueing.valid_until_duration == "10800s");
  for (const auto& until : {"1h", "30m"}) {
    flags.valid_until = until;
    auto empty = ResolveTpuVmCapacity(flags, "p", "us-east5-a");
    REQUIRE_FALSE(empty);
    CHECK(core::IsUsageError(empty.error()));
    CHECK(empty.error().message == std::string("--valid-until: expected a time after --valid-after (1h), got '") +
                                       until + "': the window would be empty");
  }
}

TEST_CASE("--ttl makes an expiry label that fits: rounded up to the second, at most ten years") {
  const auto now = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'800'000'000'500));
  CHECK(*ExpiresAt(now, "") == 0);
  CHECK(*ExpiresAt(now, "8h") == 1'800'000'001 + 8 * 3600);
  CHECK(*ExpiresAt(now, "87600h") == 1'800'000'001 + 87600LL * 3600);
  for (const auto& ttl : {"87601h", "2600000h", "99999999999h"}) {
    auto refused = ExpiresAt(now, ttl);
    REQUIRE_FALSE(refused);
    CHECK(core::IsUsageError(refused.error()));
    CHECK(refused.error().message == std::string("--ttl: expected at most 87600h (ten years), got '") + ttl + "'");
  }
  CHECK(ExpiresAt(now, "soon").error().message.rfind("--ttl: expected a duration", 0) == 0);
}

}  // namespace
}  // namespace tputrain::workflow
