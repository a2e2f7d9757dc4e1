#include <catch2/catch.hpp>

#include "tputrain/emulator/emulator.h"
#include "tputrain/emulator/faults.h"

namespace tputrain::emulator {
namespace {

core::Result<std::vector<FaultRule>> Parse(std::string_view spec) {
  return ParseFaults(spec, Emulator::MethodIds(), Emulator::OperationMethodIds());
}

TEST_CASE("fault rules parse with their targets, actions and conditions") {
  auto rules = Parse(
      "nodePools.create=RESOURCE_EXHAUSTED, *=503@every:3,nodes.create=stockout@first:2,"
      "clusters.create=stuck@nth:1, operations.get=drop@p:0.5, buckets.insert=lose-reply");
  REQUIRE(rules);
  REQUIRE(rules->size() == 6);
  CHECK((*rules)[0].target == "nodePools.create");
  CHECK((*rules)[0].action == FaultAction::kError);
  CHECK((*rules)[0].error == core::ErrorKind::kResourceExhausted);
  CHECK((*rules)[1].http_status == 503);
  CHECK((*rules)[1].error == core::ErrorKind::kUnavailable);
  CHECK((*rules)[1].when == FaultWhen::kEvery);
  CHECK((*rules)[1].n == 3);
  CHECK((*rules)[2].action == FaultAction::kStockout);
  CHECK((*rules)[2].when == FaultWhen::kFirst);
  CHECK((*rules)[3].action == FaultAction::kStuck);
  CHECK((*rules)[4].when == FaultWhen::kRandom);
  CHECK((*rules)[4].probability == 0.5);
  CHECK((*rules)[5].action == FaultAction::kLoseReply);
  CHECK(Parse("")->empty());
}

TEST_CASE("bad fault rules are usage errors that name the rule") {
  for (const char* spec :
       {"nodePools.create", "nodepools.create=UNAVAILABLE", "*=NOT_A_STATUS", "*=200", "*=503@every:0",
        "*=503@sometimes:2", "*=503@p:1.5", "buckets.insert=stockout", "*=stuck", "=503"}) {
    auto rules = Parse(spec);
    INFO(spec);
    REQUIRE_FALSE(rules);
    CHECK(core::IsUsageError(rules.error()));
    CHECK(rules.error().message.find("--faults") == 0);
  }
}

TEST_CASE("a target matches its method id by whole trailing segments") {
  FaultRule rule;
  rule.target = "nodePools.create";
  CHECK(rule.Matches("container.projects.locations.clusters.nodePools.create"));
  CHECK_FALSE(rule.Matches("container.projects.locations.clusters.create"));
  rule.target = "operations.get";
  CHECK(rule.Matches("tpu.projects.locations.operations.get"));
  CHECK(rule.Matches("container.projects.locations.operations.get"));
}

TEST_CASE("deterministic conditions fire on exactly the calls they name") {
  FaultPlan plan(*Parse("*=503@every:3,clusters.get=INTERNAL@nth:2,clusters.list=UNAVAILABLE@first:1"), 7);
  std::vector<bool> fired;
  for (int i = 0; i < 6; ++i) fired.push_back(plan.Decide("iam.projects.serviceAccounts.get").has_value());
  CHECK(fired == std::vector<bool>{false, false, true, false, false, true});

  FaultPlan nth(*Parse("clusters.get=INTERNAL@nth:2"), 7);
  CHECK_FALSE(nth.Decide("container.projects.locations.clusters.get"));
  CHECK(nth.Decide("container.projects.locations.clusters.get"));
  CHECK_FALSE(nth.Decide("container.projects.locations.clusters.get"));
}

TEST_CASE("random faults repeat exactly for the same seed") {
  auto rules = *Parse("*=503@p:0.5");
  auto run = [&](uint64_t seed) {
    FaultPlan plan(rules, seed);
    std::string pattern;
    for (int i = 0; i < 64; ++i) pattern += plan.Decide("storage.buckets.get") ? '1' : '0';
    return pattern;
  };
  CHECK(run(42) == run(42));
  CHECK(run(42) != run(43));
  std::string pattern = run(42);
  auto ones = std::count(pattern.begin(), pattern.end(), '1');
  CHECK(ones > 8);
  CHECK(ones < 56);
}

}  // namespace
}  // namespace tputrain::emulator
