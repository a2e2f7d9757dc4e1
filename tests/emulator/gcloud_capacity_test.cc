// The real gcloud against an emulator that runs out of TPU chips: gcloud must read each API's
// stockout, quota and queued-resource answers as it reads Google's, with its capacity flags
// (--spot, --reservation, --flex-start, --valid-until-duration) sent to the emulator as they are,
// and its Compute reservations used by what names them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "emulator/gcloud_fixture.h"

namespace tputrain::emulator {
namespace {

using namespace gcloud_testing;  // NOLINT(google-build-using-namespace): the fixture is this file's vocabulary
using nlohmann::json;

ProcessResult ExpectFailure(GcloudAgainstEmulator& env, const std::vector<std::string>& args) {
  ProcessResult result = env.Gcloud(args);
  INFO("gcloud " << args[0] << " " << args[1] << " ...\nstdout: " << result.out << "\nstderr: " << result.err);
  CHECK(result.exit_code == 1);
  return result;
}

std::string Value(GcloudAgainstEmulator& env, std::vector<std::string> args) {
  ProcessResult result = env.Gcloud(args);
  INFO("stderr: " << result.err);
  CHECK(result.exit_code == 0);
  std::string out = result.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

bool Post(GcloudAgainstEmulator& env, const std::string& path, const json& body) {
  http::CurlTransport transport;
  http::Request request;
  request.method = "POST";
  request.url = env.base_url() + path;
  request.body = body.dump();
  auto response = transport.Send(request);
  return response && response->status == 200;
}

const std::vector<std::string> kV6e = {"--runtime-version=v2-alpha-tpuv6e"};

std::vector<std::string> Queued(const std::string& name, const std::string& zone, const std::string& type,
                                std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"compute", "tpus",           "queued-resources",  "create",
                                   name,      "--zone=" + zone, "--node-id=" + name, "--accelerator-type=" + type,
                                   kV6e[0]};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string QueuedState(GcloudAgainstEmulator& env, const std::string& name, const std::string& zone) {
  return Value(
      env, {"compute", "tpus", "queued-resources", "describe", name, "--zone=" + zone, "--format=value(state.state)"});
}

TEST_CASE("gcloud reads Cloud TPU's stockout, quota and queued-resource answers from the emulator") {
  REQUIRE(access(kGcloud, X_OK) == 0);
  GcloudAgainstEmulator env;
  REQUIRE(env.Start({"--capacity", "us-east5-a/v6e=8,us-east5-b/v6e=8", "--quota", "us-east5/v5e/spot=0"}));
  Run(env, {"compute", "tpus", "tpu-vm", "create", "holder", "--zone=us-east5-a", "--accelerator-type=v6e-8",
            "--version=v2-alpha-tpuv6e"});

  auto stockout = ExpectFailure(env, {"compute", "tpus", "tpu-vm", "create", "second", "--zone=us-east5-a",
                                      "--accelerator-type=v6e-4", "--version=v2-alpha-tpuv6e"});
  CHECK(stockout.err.find("\"code\": 8") != std::string::npos);
  CHECK(stockout.err.find("There is no more capacity in the zone \\\"us-east5-a\\\"") != std::string::npos);

  auto quota = ExpectFailure(env, {"compute", "tpus", "tpu-vm", "create", "spot", "--zone=us-east5-a",
                                   "--accelerator-type=v5litepod-4", "--version=v2-alpha-tpuv5-lite", "--spot"});
  CHECK(quota.err.find("RESOURCE_EXHAUSTED") != std::string::npos);
  CHECK(quota.err.find("TPUV5sPreemptibleLitepodPerProjectPerRegionForTPUAPI") != std::string::npos);

  // Queued: it waits while the zone is full, and goes ACTIVE when the holder is deleted.
  Run(env, Queued("q", "us-east5-a", "v6e-8", {"--valid-until-duration=1h"}));
  CHECK(QueuedState(env, "q", "us-east5-a") == "WAITING_FOR_RESOURCES");
  Run(env, {"compute", "tpus", "tpu-vm", "delete", "holder", "--zone=us-east5-a", "--quiet"});
  CHECK(tputrain::testing::WaitFor([&] { return QueuedState(env, "q", "us-east5-a") == "ACTIVE"; },
                                   std::chrono::seconds(60)));
  CHECK(Value(env, {"compute", "tpus", "tpu-vm", "describe", "q", "--zone=us-east5-a", "--format=value(state)"}) ==
        "READY");

  // A slice the zone can never hold fails when its valid-until passes, with the reason.
  Run(env, Queued("late", "us-east5-b", "v6e-16", {"--valid-until-duration=2s"}));
  CHECK(tputrain::testing::WaitFor([&] { return QueuedState(env, "late", "us-east5-b") == "FAILED"; },
                                   std::chrono::seconds(60)));
  CHECK(Value(env, {"compute", "tpus", "queued-resources", "describe", "late", "--zone=us-east5-b",
                    "--format=value(state.failedData.error.code)"}) == "8");

  // Spot, then preempted: the node says PREEMPTED and the queued resource SUSPENDED.
  Run(env, Queued("sq", "us-east5-b", "v6e-4", {"--spot"}));
  CHECK(tputrain::testing::WaitFor([&] { return QueuedState(env, "sq", "us-east5-b") == "ACTIVE"; },
                                   std::chrono::seconds(60)));
  REQUIRE(Post(env, "/_emulator/preempt", {{"node", "projects/p/locations/us-east5-b/nodes/sq"}}));
  CHECK(Value(env, {"compute", "tpus", "tpu-vm", "describe", "sq", "--zone=us-east5-b", "--format=value(state)"}) ==
        "PREEMPTED");
  CHECK(QueuedState(env, "sq", "us-east5-b") == "SUSPENDED");

  // The alpha track's --reservation goes to v2alpha1 and draws on the reservation, not the zone.
  Run(env, {"compute", "reservations", "create", "r1", "--zone=us-east5-a", "--vm-count=2",
            "--machine-type=ct6e-standard-4t"});
  Run(env, {"alpha", "compute", "tpus", "queued-resources", "create", "rq", "--zone=us-east5-a", "--node-id=rq",
            "--accelerator-type=v6e-8", kV6e[0], "--reservation=r1"});
  CHECK(tputrain::testing::WaitFor([&] { return QueuedState(env, "rq", "us-east5-a") == "ACTIVE"; },
                                   std::chrono::seconds(60)));
  bool sent_alpha = false;
  const json log = env.Requests();
  for (const auto& request : log["requests"]) {
    if (request["method"] != "POST" || request["path"] != "/v2alpha1/projects/p/locations/us-east5-a/queuedResources")
      continue;
    sent_alpha = true;
    CHECK(request["body"]["reservationName"] == "projects/p/locations/us-east5-a/reservations/r1");
  }
  CHECK(sent_alpha);
  auto chips = env.State()->at("tpuNodes");
  CHECK(chips["projects/p/locations/us-east5-a/nodes/rq"]["schedulingConfig"]["reserved"] == true);
  CHECK(Value(env, {"compute", "reservations", "describe", "r1", "--zone=us-east5-a",
                    "--format=value(specificReservation.inUseCount)"}) == "2");
}

TEST_CASE("gcloud reads GKE's stockout, retry and quota answers, and creates Spot, reserved and flex-start pools") {
  REQUIRE(access(kGcloud, X_OK) == 0);
  GcloudAgainstEmulator env;
  REQUIRE(env.Start({"--capacity", "us-east5-a/v6e=16", "--quota", "us-east5/v5e=4", "--stockout-retry", "1h"}));
  Run(env, {"container", "clusters", "create", "c", "--location=us-east5-a", "--num-nodes=1"});
  const std::vector<std::string> pool = {
      "container", "node-pools", "create", "--cluster=c", "--location=us-east5-a", "--machine-type=ct6e-standard-4t"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = pool;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };

  Run(env, with({"big", "--tpu-topology=4x4", "--num-nodes=4"}));
  Run(env, with({"spot", "--tpu-topology=2x2", "--num-nodes=1", "--spot"}));
  Run(env, {"compute", "reservations", "create", "r1", "--zone=us-east5-a", "--vm-count=1",
            "--machine-type=ct6e-standard-4t"});
  Run(env, with({"reserved", "--tpu-topology=2x2", "--num-nodes=1", "--reservation-affinity=specific",
                 "--reservation=projects/p/reservations/r1"}));
  CHECK(Value(env, {"compute", "reservations", "describe", "r1", "--zone=us-east5-a",
                    "--format=value(specificReservation.inUseCount)"}) == "1");
  auto reservation_short = ExpectFailure(env, with({"short-reserved", "--tpu-topology=2x2", "--num-nodes=1",
                                                    "--reservation-affinity=specific", "--reservation=r1"}));
  CHECK(reservation_short.err.find("code=429, message=Reservation does not have enough resources for the request: "
                                   "specific reservation \"r1\" is insufficient") != std::string::npos);
  auto reservation_missing = ExpectFailure(env, with({"missing", "--tpu-topology=2x2", "--num-nodes=1",
                                                      "--reservation-affinity=specific", "--reservation=r2"}));
  CHECK(reservation_missing.err.find("code=404, message=Google Compute Engine: reservation \"r2\" not found") !=
        std::string::npos);
  Run(env, with({"flex", "--tpu-topology=2x2", "--flex-start", "--enable-autoscaling", "--num-nodes=0", "--min-nodes=0",
                 "--max-nodes=1", "--location-policy=ANY", "--reservation-affinity=none", "--no-enable-autorepair"}));
  auto quota = ExpectFailure(env, {"container", "node-pools", "create", "v5e", "--cluster=c", "--location=us-east5-a",
                                   "--machine-type=ct5lp-hightpu-4t", "--tpu-topology=2x4", "--num-nodes=2"});
  CHECK(quota.err.find("code=403, message=Insufficient regional quota to satisfy request: resource "
                       "\"TPUS_PER_TPU_FAMILY\": request requires '8.0' and is short '4.0'") != std::string::npos);

  auto stockout = ExpectFailure(env, with({"short", "--tpu-topology=2x2", "--num-nodes=1"}));
  CHECK(stockout.err.find("finished with error: Google Compute Engine: Not enough resources available to fulfill "
                          "the request.") != std::string::npos);
  CHECK(Value(env, {"container", "node-pools", "describe", "short", "--cluster=c", "--location=us-east5-a",
                    "--format=value(status,conditions[0].code)"}) == "ERROR\tGCE_STOCKOUT");
  // GKE retries it: the cluster takes no other change meanwhile.
  auto busy = ExpectFailure(
      env, {"container", "node-pools", "delete", "short", "--cluster=c", "--location=us-east5-a", "--quiet"});
  CHECK(busy.err.find("Cluster is running incompatible operation") != std::string::npos);
  // Chips freed during the retry bring it up.
  REQUIRE(Post(env, "/_emulator/capacity", {{"chips", {{"us-east5-a/v6e", 20}}}}));
  CHECK(Value(env, {"container", "node-pools", "describe", "short", "--cluster=c", "--location=us-east5-a",
                    "--format=value(status)"}) == "RUNNING");

  auto pools = env.State()->at("clusters")["projects/p/locations/us-east5-a/clusters/c"]["nodePools"];
  for (const auto& each : pools) {
    if (each["name"] == "spot") CHECK(each["config"]["spot"] == true);
    if (each["name"] == "reserved") {
      CHECK(each["config"]["reservationAffinity"] == json({{"consumeReservationType", "SPECIFIC_RESERVATION"},
                                                           {"key", "compute.googleapis.com/reservation-name"},
                                                           {"values", {"projects/p/reservations/r1"}}}));
    }
    if (each["name"] == "flex") {
      CHECK(each["config"]["flexStart"] == true);
      CHECK(each["initialNodeCount"] == 0);
    }
  }
}

}  // namespace
}  // namespace tputrain::emulator
