// The TPU catalog's slice facts under the names templates read (render::ComputedNames).
#include <map>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "template_values.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/render/values.h"

using tputrain::workflow::SliceTemplateValues;
using tputrain::workflow::ValuesForSlice;

namespace {

std::map<std::string, std::string> For(const std::string& tpu_type, int slices) {
  auto slice = tputrain::catalog::FindSliceType(tpu_type);
  REQUIRE(slice);
  std::map<std::string, std::string> values;
  for (const auto& value : ValuesForSlice(*slice, slices)) values[value.name] = value.value;
  return values;
}

}  // namespace

TEST_CASE("v6e-16 (seed 001) gives the RayCluster's and trainer's numbers") {
  auto v = For("v6e-16", 1);
  CHECK(v["TPU_TOPOLOGY"] == "4x4");
  CHECK(v["TPU_CHIPS_PER_HOST"] == "4");
  CHECK(v["NUM_HOSTS"] == "4");
  CHECK(v["TPU_CHIPS"] == "16");
  CHECK(v["GKE_ACCELERATOR"] == "tpu-v6e-slice");
  CHECK(v["MACHINE_TYPE"] == "ct6e-standard-4t");
  CHECK(v["RAY_NUM_WORKERS"] == "4");
  CHECK(v["RAY_TPU_ACCELERATOR"] == "TPU-V6E");
  CHECK(v["LWS_SIZE"] == "5");
  CHECK(v["PATHWAYS_INSTANCE_TYPE"] == "tpuv6e:4x4");
  CHECK(v["SLICE_TOPOLOGY_KEY"] == "cloud.google.com/gke-nodepool");
  CHECK(v["ONE_HOST_MACHINE_TYPE"] == "");  // no VM holds a 4x4
}

TEST_CASE("a v6e 2x4 fits one ct6e-standard-8t VM, a single-host slice its own machine") {
  CHECK(For("v6e-8", 1)["ONE_HOST_MACHINE_TYPE"] == "ct6e-standard-8t");
  CHECK(For("v6e-8", 1)["MACHINE_TYPE"] == "ct6e-standard-4t");
  CHECK(For("v6e-4", 1)["ONE_HOST_MACHINE_TYPE"] == "ct6e-standard-4t");
}

TEST_CASE("a single-host slice is one node: its hosts share kubernetes.io/hostname, not a whole node pool") {
  auto v = For("v6e-4", 2);
  CHECK(v["NUM_HOSTS"] == "1");
  CHECK(v["SLICE_TOPOLOGY_KEY"] == "kubernetes.io/hostname");
}

TEST_CASE("two v6e 2x4 slices (disaggregated 70B) keep LWS size 5") {
  auto v = For("v6e-8", 2);
  CHECK(v["TPU_TOPOLOGY"] == "2x4");
  CHECK(v["NUM_HOSTS"] == "2");
  CHECK(v["TOTAL_HOSTS"] == "4");
  CHECK(v["LWS_SIZE"] == "5");
  CHECK(v["PATHWAYS_INSTANCE_TYPE"] == "tpuv6e:2x4");
}

TEST_CASE("two v5e 4x8 slices (Saxml) are 8 hosts of 4 chips each") {
  auto v = For("v5litepod-32", 2);
  CHECK(v["TPU_TOPOLOGY"] == "4x8");
  CHECK(v["NUM_HOSTS"] == "8");
  CHECK(v["TPU_CHIPS_PER_HOST"] == "4");
  CHECK(v["GKE_ACCELERATOR"] == "tpu-v5-lite-podslice");
  CHECK(v["MACHINE_TYPE"] == "ct5lp-hightpu-4t");
  CHECK(v["TOTAL_CHIPS"] == "64");
  CHECK(v["TPU_PLATFORM_CHIP"] == "tpuv5e");
}

TEST_CASE("Pathways' instance type names v5p tpuv5 and Ironwood tpu7x") {
  CHECK(For("v5p-16", 1)["PATHWAYS_INSTANCE_TYPE"] == "tpuv5:2x2x2");
  CHECK(For("tpu7x-128", 1)["PATHWAYS_INSTANCE_TYPE"] == "tpu7x:4x4x4");
  CHECK(For("v5litepod-16", 1)["PATHWAYS_INSTANCE_TYPE"] == "tpuv5e:4x4");
}

TEST_CASE("a slice fixes exactly the names the renderer reserves, each with its meaning") {
  auto slice = tputrain::catalog::FindSliceType("v6e-16");
  REQUIRE(slice);
  std::set<std::string> produced;
  for (const auto& value : ValuesForSlice(*slice, 1)) {
    INFO(value.name);
    CHECK(tputrain::render::IsComputed(value.name));
    CHECK_FALSE(value.meaning.empty());
    produced.insert(value.name);
  }
  std::set<std::string> reserved;
  for (const auto& [name, meaning] : tputrain::render::ComputedNames()) reserved.insert(name);
  CHECK(produced == reserved);
}

TEST_CASE("the renderer's slice lookup accepts aliases and names an unknown TPU type") {
  auto alias = SliceTemplateValues("v6e-4x4", 1);
  REQUIRE(alias);
  std::map<std::string, std::string> v;
  for (const auto& value : *alias) v[value.name] = value.value;
  CHECK(v["TPU_ACCELERATOR_TYPE"] == "v6e-16");
  auto unknown = SliceTemplateValues("v9z-16", 1);
  REQUIRE_FALSE(unknown);
  CHECK_THAT(unknown.error().message, Catch::Contains("v9z-16"));
}
