// cleanup's Ray job step on a scripted reach: what a job whose Ray cannot be reached comes to.
#include <catch2/catch.hpp>

#include "testing/fake_transport.h"
#include "tputrain/workflow/cleanup.h"
#include "tputrain/workflow/ledger_entries.h"

namespace tputrain::workflow {
namespace {

using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;

struct Fixture {
  FakeTransport transport;
  FakeClock clock;
  core::NullReporter reporter;
  ProvisionEnv env{testing::RuntimeOn(clock, reporter), transport, {}};
  state::LedgerEntry job = RayJobEntry("raysubmit_1", RayJobTarget::OnTpuVmRay({"p", "us-east5-a", "ray-v6e"}, "iap"));
  std::vector<RayJobTarget> asked;

  CleanupReach ReachFailingWith(core::Error error) {
    CleanupReach reach;
    reach.ray_jobs = [this, error](const RayJobTarget& target) -> core::Result<RayJobsAccess> {
      asked.push_back(target);
      return core::Fail(error);
    };
    return reach;
  }
};

core::Error Failed(core::ErrorKind kind, int status, std::string where) {
  core::Error error = core::Error::Make(kind, "Resource 'projects/p/locations/us-east5-a/nodes/ray-v6e' was not found");
  error.http_status = status;
  error.where = std::move(where);
  return error;
}

TEST_CASE("a job on a TPU VM that was deleted before cleanup (the TPU API says 404) is already gone") {
  Fixture f;
  auto outcome = StopRayJobEntry(
      f.env, f.job, f.ReachFailingWith(Failed(core::ErrorKind::kNotFound, 404, "tpu.projects.locations.nodes.get")),
      /*head_doomed=*/false);
  REQUIRE(outcome);
  CHECK(outcome->action == OutcomeAction::kAlreadyGone);
  CHECK(outcome->name == "raysubmit_1");
  REQUIRE(f.asked.size() == 1);
  CHECK(f.asked[0].tpu_vm.node == "ray-v6e");
}

TEST_CASE("a job whose Ray cannot be asked for another reason is still a failure cleanup reports") {
  Fixture f;
  SECTION("a 404 from elsewhere than the TPU API") {
    auto outcome =
        StopRayJobEntry(f.env, f.job, f.ReachFailingWith(Failed(core::ErrorKind::kNotFound, 404, "iap.tunnel")), false);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().message.rfind("stopping Ray job raysubmit_1: ", 0) == 0);
  }
  SECTION("the TPU API refusing access") {
    auto outcome = StopRayJobEntry(
        f.env, f.job,
        f.ReachFailingWith(Failed(core::ErrorKind::kPermissionDenied, 403, "tpu.projects.locations.nodes.get")), false);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().kind == core::ErrorKind::kPermissionDenied);
  }
  SECTION("a job on a Ray cluster whose access fails with NotFound") {
    f.job = RayJobEntry("raysubmit_2", RayJobTarget::Direct("http://127.0.0.1:8265"));
    auto outcome = StopRayJobEntry(
        f.env, f.job, f.ReachFailingWith(Failed(core::ErrorKind::kNotFound, 404, "tpu.projects.locations.nodes.get")),
        false);
    CHECK_FALSE(outcome);
  }
}

}  // namespace
}  // namespace tputrain::workflow
