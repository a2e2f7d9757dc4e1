// What a Cloud TPU VM create may ask for: no tpu7x (the Cloud TPU API does not offer it), never an
// empty runtime version, a zone the catalog lists; and --reserved, gcloud's any-reservation form.
#include <catch2/catch.hpp>

#include "tpu_vm_slice.h"
#include "tputrain/workflow/capacity.h"

namespace tputrain::workflow {
namespace {

TEST_CASE("a TPU VM: tpu7x is refused pointing at a GKE pool; the runtime version is the catalog's or --version") {
  auto v5p = ResolveTpuVmSlice({"v5p-8", "", {"europe-west4-b"}, false});
  REQUIRE(v5p);
  CHECK(v5p->runtime_version == "v2-alpha-tpuv5");
  CHECK(ResolveTpuVmSlice({"v6e-8", "v2-alpha-tpuv6e-custom", {}, false})->runtime_version == "v2-alpha-tpuv6e-custom");

  auto tpu7x = ResolveTpuVmSlice({"tpu7x-8", "", {"us-central1-c"}, false});
  REQUIRE_FALSE(tpu7x);
  CHECK(core::IsUsageError(tpu7x.error()));
  CHECK(tpu7x.error().message ==
        "--accelerator-type: the Cloud TPU API does not offer tpu7x; make tpu7x-8 as a GKE node pool: tputrain "
        "nodepool create NAME --cluster CLUSTER --tpu-type tpu7x-8");
  // Not even with a version: nothing is sent with an empty or any runtime version.
  CHECK_FALSE(ResolveTpuVmSlice({"tpu7x-8", "v2-alpha-tpu7x", {}, true}));

  auto zone = ResolveTpuVmSlice({"v6e-8", "", {"us-east5-b", "europe-west1-b"}, false});
  REQUIRE_FALSE(zone);
  CHECK(zone.error().message.rfind("--zones: v6e-8 is not offered in zone europe-west1-b; v6e is in ", 0) == 0);
  CHECK(ResolveTpuVmSlice({"v6e-8", "", {"europe-west1-b"}, true}));  // --skip-zone-check
  CHECK(ResolveTpuVmSlice({"v9x-8", "", {}, false}).error().message.rfind("--accelerator-type: ", 0) == 0);
}

TEST_CASE("--reserved: the node's schedulingConfig.reserved, or a queued resource's reservations/-") {
  TpuVmCapacityFlags flags;
  flags.reserved = true;
  auto direct = ResolveTpuVmCapacity(flags, "p", "us-east5-b");
  REQUIRE(direct);
  CHECK(direct->reserved);
  CHECK_FALSE(direct->queued);
  CHECK(direct->queueing.reservation_name.empty());
  flags.queued = true;
  auto queued = ResolveTpuVmCapacity(flags, "p", "us-east5-b");
  REQUIRE(queued);
  CHECK(queued->queued);
  CHECK(queued->queueing.reservation_name == "projects/p/locations/us-east5-b/reservations/-");
  flags.capacity.capacity = "reservation";  // the long form says the same
  CHECK(ResolveTpuVmCapacity(flags, "p", "us-east5-b")->reserved);

  const std::pair<TpuVmCapacityFlags, std::string> conflicts[] = {
      {{{"", true}, true}, "--reserved: conflicts with --spot"},
      {{{"", false, "r1"}, true}, "--reserved: conflicts with --reservation"},
      {{{"spot"}, true}, "--reserved: conflicts with --capacity spot"},
  };
  for (const auto& [given, prefix] : conflicts) {
    auto refused = ResolveTpuVmCapacity(given, "p", "us-east5-b");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.rfind(prefix, 0) == 0);
  }
}

}  // namespace
}  // namespace tputrain::workflow
