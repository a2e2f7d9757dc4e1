// `tputrain submit`'s flags as a request: which Ray the job goes to, the steps and the RayCluster's
// wait, each refused with one usage line naming the flags, before any connection.
#include <catch2/catch.hpp>

#include "tputrain/workflow/submit_command.h"

namespace tputrain::workflow {
namespace {

SubmitCommand Smoke() {
  SubmitCommand command;
  command.spec.model = "maxtext-cpu-smoke";
  return command;
}

std::string UsageOf(const SubmitCommand& command) {
  auto request = command.Request();
  REQUIRE_FALSE(request);
  CHECK(request.error().kind == core::ErrorKind::kInvalidArgument);
  return request.error().message;
}

TEST_CASE("submit: --tpu-vm, --address and the cluster flags exclude one another", "[unit]") {
  auto command = Smoke();
  command.reach.tpu_vm.name = "ray-v6e";
  command.address_given = true;
  CHECK(UsageOf(command) == "--tpu-vm and --address are exclusive: the job runs on the TPU VM's own Ray");
  command.cluster_flag = "--raycluster";
  CHECK(UsageOf(command) == "--tpu-vm and --raycluster are exclusive: the job runs on the TPU VM's own Ray");
  command.reach.tpu_vm.name.clear();
  CHECK(UsageOf(command) ==
        "--address and --raycluster are exclusive: pass --address for a Ray you reach directly, or the cluster flags "
        "for a RayCluster tputrain applies");
  command.address_given = false;
  CHECK(command.Request());
}

TEST_CASE("submit: --steps is a whole number in range, into the spec", "[unit]") {
  auto command = Smoke();
  command.steps = "0";
  CHECK(UsageOf(command) == "--steps: expected a whole number from 1 to 1000000000000, got '0'");
  command.steps = "250";
  auto request = command.Request();
  REQUIRE(request);
  CHECK(request->spec.steps == 250);
  CHECK_FALSE(request->raycluster);
}

TEST_CASE("submit: a cluster flag makes a RayCluster request with its wait, capacity and namespace", "[unit]") {
  auto command = Smoke();
  command.cluster_flag = "--kubeconfig";
  command.ready_timeout = "soon";
  CHECK(UsageOf(command).rfind("--ready-timeout: ", 0) == 0);
  command.ready_timeout = "5m";
  command.capacity = "spot";
  command.reach.access.ns = "training";
  command.raycluster.name = "smoke";
  command.wait = false;
  auto request = command.Request();
  REQUIRE(request);
  REQUIRE(request->raycluster);
  CHECK(request->raycluster->name == "smoke");
  CHECK(request->raycluster->ready_timeout == std::chrono::minutes(5));
  CHECK(request->raycluster->capacity == CapacityMode::kSpot);
  CHECK(request->raycluster->ns == "training");
  CHECK_FALSE(request->wait);
}

}  // namespace
}  // namespace tputrain::workflow
