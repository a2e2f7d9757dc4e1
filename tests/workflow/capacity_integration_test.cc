// Capacity choices against `tputrain emulator start` (which runs out of chips as Google does):
// tputrain's pool bodies for Spot, a reservation and flex-start against gcloud's, and choices
// refused before any call.
#include <catch2/catch.hpp>

#include "emulator_env.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

json LastPoolBody(EmulatorEnv& env) {
  json found;
  for (const auto& entry : env.Requests()) {
    const std::string path = entry.value("path", "");
    if (entry.value("method", "") == "POST" && path.size() > 10 && path.substr(path.size() - 10) == "/nodePools") {
      found = entry["body"].is_string() ? json::parse(entry["body"].get<std::string>()) : entry["body"];
    }
  }
  return found;
}

size_t CountRequests(EmulatorEnv& env) { return env.Requests().size(); }

const std::vector<std::string> kCluster = {"cluster", "create", "c", "--location", "us-east5-a", "--run", "r1"};
const std::vector<std::string> kReservation = {
    "compute", "reservations", "create", "r1", "--zone=us-east5-a", "--vm-count=4", "--machine-type=ct6e-standard-4t"};

// gcloud's pool body, then tputrain's, each on a fresh emulator holding cluster c (and r1).
std::pair<json, json> Bodies(EmulatorEnv& env, const std::vector<std::string>& gcloud_flags,
                             const std::vector<std::string>& tputrain_flags) {
  std::pair<json, json> bodies;
  for (int tool = 0; tool < 2; ++tool) {
    env.Reset();
    REQUIRE(env.Tputrain(kCluster).exit_code == 0);
    REQUIRE(env.Gcloud(kReservation).exit_code == 0);
    std::vector<std::string> args;
    if (tool == 0) {
      args = {"container",
              "node-pools",
              "create",
              "tpu",
              "--cluster=c",
              "--location=us-east5-a",
              "--machine-type=ct6e-standard-4t",
              "--tpu-topology=4x4"};
    } else {
      args = {"nodepool",   "create",     "tpu",    "--cluster", "c", "--location",
              "us-east5-a", "--tpu-type", "v6e-16", "--run",     "r1"};
    }
    const auto& extra = tool == 0 ? gcloud_flags : tputrain_flags;
    args.insert(args.end(), extra.begin(), extra.end());
    auto result = tool == 0 ? env.Gcloud(args) : env.Tputrain(args);
    INFO((tool == 0 ? "gcloud: " : "tputrain: ") << result.err);
    REQUIRE(result.exit_code == 0);
    (tool == 0 ? bodies.first : bodies.second) = LastPoolBody(env);
  }
  // The deliberate difference: tputrain labels what the run made.
  CHECK(bodies.second["nodePool"]["config"]["resourceLabels"] == json{{"tputrain-run", "r1"}});
  bodies.second["nodePool"]["config"].erase("resourceLabels");
  return bodies;
}

TEST_CASE("Spot, reservation and flex-start pools send gcloud's bodies", "[integration]") {
  EmulatorEnv env({"--capacity", "us-east5-a/v6e=64"});
  REQUIRE(env.ready());
  SECTION("spot") {
    auto [gcloud, ours] = Bodies(env, {"--num-nodes=4", "--spot"}, {"--capacity", "spot"});
    CHECK(ours == gcloud);
  }
  SECTION("a specific reservation, verbatim") {
    auto [gcloud, ours] =
        Bodies(env, {"--num-nodes=4", "--reservation-affinity=specific", "--reservation=projects/p/reservations/r1"},
               {"--reservation", "projects/p/reservations/r1"});
    CHECK(ours == gcloud);
  }
  SECTION("flex-start, as xpk's --flex asks gcloud for it") {
    auto [gcloud, ours] = Bodies(
        env,
        {"--flex-start", "--enable-autoscaling", "--num-nodes=0", "--min-nodes=0", "--max-nodes=4",
         "--location-policy=ANY", "--reservation-affinity=none", "--no-enable-autorepair", "--max-run-duration=86400s"},
        {"--capacity", "flex-start", "--max-run-duration", "24h"});
    CHECK(ours == gcloud);
  }
}

TEST_CASE("an ambiguous or impossible capacity choice is one usage line, before any call", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const std::vector<std::string> pool = {"nodepool",   "create",     "tpu",        "--cluster", "c",
                                         "--location", "us-east5-a", "--tpu-type", "v6e-16"};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--spot", "--reservation", "r1"}, "--spot: conflicts with --reservation"},
      {{"--capacity", "flex-start", "--enable-queued-provisioning"}, "--enable-queued-provisioning: GKE queues"},
      {{"--capacity", "reservation"}, "--capacity reservation: name the reservation with --reservation NAME"},
      {{"--reservation", "projects/p/zones/us-east5-a/reservations/r1"}, "--reservation: expected a reservation name"},
      {{"--capacity", "spot", "--max-run-duration", "1h"}, "--max-run-duration: only with --capacity flex-start"},
  };
  const size_t before = CountRequests(env);
  for (const auto& [flags, message] : cases) {
    auto args = pool;
    args.insert(args.end(), flags.begin(), flags.end());
    auto result = env.Tputrain(args);
    INFO(flags.front() << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(message) != std::string::npos);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
  CHECK(CountRequests(env) == before);
}

}  // namespace
}  // namespace tputrain::workflow::testing
