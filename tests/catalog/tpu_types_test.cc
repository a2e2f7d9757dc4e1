#include <catch2/catch.hpp>

#include "tputrain/catalog/tpu_types.h"

using tputrain::catalog::FindGeneration;
using tputrain::catalog::FindSliceByMachineType;
using tputrain::catalog::FindSliceByTopology;
using tputrain::catalog::FindSliceType;

TEST_CASE("v6e and v5e names count chips; v4, v5p and tpu7x names count TensorCores") {
  auto v6e16 = FindSliceType("v6e-16");
  REQUIRE(v6e16);
  CHECK(v6e16->topology == "4x4");
  CHECK(v6e16->chips == 16);
  CHECK(v6e16->hosts == 4);
  CHECK(v6e16->chips_per_host == 4);
  CHECK(v6e16->machine_type == "ct6e-standard-4t");
  CHECK(v6e16->generation->gke_accelerator == "tpu-v6e-slice");

  auto v5p8 = FindSliceType("v5p-8");
  REQUIRE(v5p8);
  CHECK(v5p8->chips == 4);
  CHECK(v5p8->topology == "2x2x1");
  CHECK(v5p8->single_host());
  CHECK(v5p8->machine_type == "ct5p-hightpu-4t");

  auto tpu7x = FindSliceType("tpu7x-128");
  REQUIRE(tpu7x);
  CHECK(tpu7x->chips == 64);
  CHECK(tpu7x->topology == "4x4x4");
  CHECK(tpu7x->hosts == 16);
}

TEST_CASE("v5e is v5litepod, and a topology alias names the same slice") {
  auto by_count = FindSliceType("v5litepod-32");
  auto by_family = FindSliceType("v5e-32");
  auto by_topology = FindSliceType("v5e-4x8");
  REQUIRE(by_count);
  REQUIRE(by_family);
  REQUIRE(by_topology);
  CHECK(by_count->accelerator_type == "v5litepod-32");
  CHECK(by_family->accelerator_type == "v5litepod-32");
  CHECK(by_topology->accelerator_type == "v5litepod-32");
  CHECK(by_count->hosts == 8);
  CHECK(by_count->machine_type == "ct5lp-hightpu-4t");
}

TEST_CASE("2x4 is two hosts on 4-chip VMs, one host on the 8-chip machine type") {
  auto multi = FindSliceByMachineType("ct6e-standard-4t", "2x4");
  REQUIRE(multi);
  CHECK(multi->hosts == 2);
  CHECK(multi->accelerator_type == "v6e-8");
  auto single = FindSliceByMachineType("ct5lp-hightpu-8t", "2x4");
  REQUIRE(single);
  CHECK(single->hosts == 1);
  CHECK(single->chips_per_host == 8);
}

TEST_CASE("single-chip topologies use the 1-chip machine types") {
  auto v6e1 = FindSliceType("v6e-1");
  REQUIRE(v6e1);
  CHECK(v6e1->machine_type == "ct6e-standard-1t");
  CHECK(v6e1->hosts == 1);
  auto tpu7x2 = FindSliceType("tpu7x-2");
  REQUIRE(tpu7x2);
  CHECK(tpu7x2->machine_type == "tpu7x-standard-1t");
}

TEST_CASE("unknown TPU names, topologies and machine types are usage errors listing the valid choices") {
  auto unknown_family = FindSliceType("v9z-16");
  REQUIRE_FALSE(unknown_family);
  CHECK_THAT(unknown_family.error().message, Catch::Contains("v6e"));
  auto unknown_size = FindSliceType("v6e-12");
  REQUIRE_FALSE(unknown_size);
  CHECK_THAT(unknown_size.error().message, Catch::Contains("v6e-16"));
  auto topology = FindSliceByTopology(*FindGeneration("v5e"), "3x3");
  REQUIRE_FALSE(topology);
  CHECK_THAT(topology.error().message, Catch::Contains("4x8"));
  CHECK_FALSE(FindSliceByMachineType("n2-standard-8", "4x4").has_value());
  CHECK_FALSE(FindSliceByMachineType("ct6e-standard-4t", "2x2x2").has_value());
}

TEST_CASE("every slice's hosts × chips per host is its chip count") {
  for (const auto& generation : tputrain::catalog::Generations()) {
    for (const auto& slice : tputrain::catalog::SlicesOf(generation)) {
      CHECK(slice.hosts * slice.chips_per_host == slice.chips);
      CHECK_FALSE(slice.machine_type.empty());
    }
  }
}

TEST_CASE("a TPU machine type alone names the slice one VM of it holds") {
  using tputrain::catalog::SingleHostSliceOf;
  auto v6e8 = SingleHostSliceOf("ct6e-standard-8t");
  REQUIRE(v6e8);
  CHECK(v6e8->accelerator_type == "v6e-8");
  CHECK(v6e8->topology == "2x4");
  CHECK(v6e8->hosts == 1);
  CHECK(v6e8->chips_per_host == 8);
  auto tpu7x8 = SingleHostSliceOf("tpu7x-standard-4t");
  REQUIRE(tpu7x8);
  CHECK(tpu7x8->accelerator_type == "tpu7x-8");
  CHECK(tpu7x8->topology == "2x2x1");
  CHECK(SingleHostSliceOf("ct6e-standard-4t")->accelerator_type == "v6e-4");
  CHECK(SingleHostSliceOf("ct6e-standard-1t")->accelerator_type == "v6e-1");
  CHECK(SingleHostSliceOf("ct5p-hightpu-4t")->accelerator_type == "v5p-8");
  auto cpu = SingleHostSliceOf("n2-standard-32");
  REQUIRE(!cpu);
  CHECK(cpu.error().kind == tputrain::core::ErrorKind::kNotFound);
}

TEST_CASE("tpu7x: a workload policy for multi-host pools, GKE 1.34 at least, no Cloud TPU API, two NUMA nodes") {
  const auto* tpu7x = FindGeneration("tpu7x");
  REQUIRE(tpu7x != nullptr);
  CHECK(tpu7x->workload_policy);
  CHECK_FALSE(tpu7x->cloud_tpu_api);
  CHECK(tpu7x->min_gke_version == "1.34.0-gke.2201000");
  CHECK(tpu7x->min_autopilot_version == "1.34.1-gke.3084001");
  CHECK(tpu7x->numa_nodes_per_host == 2);
  for (const char* other : {"v4", "v5e", "v5p", "v6e"}) {
    const auto* generation = FindGeneration(other);
    REQUIRE(generation != nullptr);
    CHECK_FALSE(generation->workload_policy);
    CHECK(generation->cloud_tpu_api);
    CHECK(generation->min_gke_version.empty());
  }
}

TEST_CASE("the zone catalog: a type in a zone (or region) that offers it passes; elsewhere one line naming the zones") {
  using tputrain::catalog::CheckOffered;
  auto v6e8 = FindSliceType("v6e-8");
  REQUIRE(v6e8);
  CHECK(CheckOffered(*v6e8, "us-east5-b", "--location", "--skip-zone-check"));
  CHECK(CheckOffered(*v6e8, "us-east5", "--location", "--skip-zone-check"));
  auto refused = CheckOffered(*v6e8, "europe-west1-b", "--location", "--skip-zone-check");
  REQUIRE(!refused);
  CHECK(refused.error().kind == tputrain::core::ErrorKind::kInvalidArgument);
  CHECK(refused.error().message.rfind("--location: v6e-8 is not offered in zone europe-west1-b; v6e is in ", 0) == 0);
  CHECK(refused.error().message.find("us-east5-b") != std::string::npos);
  CHECK(refused.error().message.find("--skip-zone-check") != std::string::npos);
  auto tpu7x = FindSliceType("tpu7x-128");
  REQUIRE(tpu7x);
  CHECK(CheckOffered(*tpu7x, "us-central1-c", "--location", "--skip-zone-check"));
  CHECK(!CheckOffered(*tpu7x, "us-east5-b", "--location", "--skip-zone-check"));
  CHECK(!CheckOffered(*tpu7x, "europe-west4", "--location", "--skip-zone-check"));
  // Google's page lists fewer zones than acceleratorTypes.list offered: seed 004's v5p-8 in
  // europe-west4-b is offered.
  CHECK(CheckOffered(*FindSliceType("v5p-8"), "europe-west4-b", "--zone", "--skip-zone-check"));
}
