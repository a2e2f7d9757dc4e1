// gcloud's node pool flags checked against the TPU catalog: what `cluster create --tpu-type` and
// `nodepool create` send, and the one-line usage errors for flags that contradict it.
#include <catch2/catch.hpp>

#include "tputrain/workflow/node_pools.h"

using tputrain::core::ErrorKind;
using tputrain::workflow::NodePoolsFor;
using tputrain::workflow::TpuPoolRequest;

TEST_CASE("a TPU type gives the catalog's machine type, topology and host count") {
  TpuPoolRequest request;
  request.tpu_type = "v6e-16";
  request.capacity.spot = true;
  auto pools = NodePoolsFor("tpu", request);
  REQUIRE(pools);
  REQUIRE(pools->size() == 1);
  const auto& pool = pools->front();
  CHECK(pool.name == "tpu");
  CHECK(pool.machine_type == "ct6e-standard-4t");
  CHECK(pool.tpu_topology == "4x4");
  CHECK(pool.node_count == 4);
  CHECK(pool.spot);
}

TEST_CASE("a machine type and topology find the same slice; several slices are NAME-i") {
  TpuPoolRequest request;
  request.machine_type = "ct5lp-hightpu-4t";
  request.tpu_topology = "4x8";
  request.num_slices = 2;
  auto pools = NodePoolsFor("tpu", request);
  REQUIRE(pools);
  REQUIRE(pools->size() == 2);
  CHECK((*pools)[0].name == "tpu-0");
  CHECK((*pools)[1].name == "tpu-1");
  CHECK((*pools)[1].node_count == 8);
}

TEST_CASE("flags that contradict the catalog are usage errors naming the flag") {
  struct Case {
    TpuPoolRequest request;
    std::string prefix;
  };
  auto with = [](auto change) {
    TpuPoolRequest request;
    change(request);
    return request;
  };
  const Case cases[] = {
      {with([](auto& r) { r.tpu_type = "v9x-16"; }), "--tpu-type: "},
      {with([](auto& r) { r.tpu_type = "v6e-16", r.machine_type = "ct5lp-hightpu-4t"; }),
       "--machine-type: v6e-16 runs on ct6e-standard-4t, not ct5lp-hightpu-4t"},
      {with([](auto& r) { r.tpu_type = "v6e-16", r.tpu_topology = "2x2"; }), "--tpu-topology: v6e-16 is 4x4, not 2x2"},
      {with([](auto& r) { r.tpu_type = "v6e-16", r.num_nodes = 3; }), "--num-nodes: v6e-16 (4x4) has 4 hosts, not 3"},
      {with([](auto& r) { r.tpu_topology = "4x4"; }), "--machine-type: required with --tpu-topology"},
      {with([](auto& r) { r.machine_type = "ct6e-standard-4t", r.tpu_topology = "9x9"; }), "--tpu-topology: "},
      {with([](auto&) {}), "--tpu-type: expected a TPU slice type"},
      {with([](auto& r) { r.machine_type = "n2-standard-8", r.num_nodes = -3; }),
       "--num-nodes: expected a positive node count"},
      {with([](auto& r) { r.tpu_type = "v6e-16", r.machine_type = "m1-ultramem-160"; }),
       "--machine-type: v6e-16 runs on ct6e-standard-4t, not m1-ultramem-160"},
      {with([](auto& r) { r.machine_type = "m1-ultramem-160", r.tpu_topology = "4x4"; }), "--tpu-topology: "},
      {with([](auto& r) { r.machine_type = "m1-ultramem-160", r.disk_size = "3000.5"; }), "--disk-size: "},
  };
  for (const auto& c : cases) {
    auto pools = NodePoolsFor("tpu", c.request);
    REQUIRE_FALSE(pools);
    CHECK(pools.error().kind == ErrorKind::kInvalidArgument);
    CHECK(pools.error().message.rfind(c.prefix, 0) == 0);
    CHECK(pools.error().message.find('\n') == std::string::npos);
  }
}

TEST_CASE("a machine type without TPU flags is a CPU pool: one node unless told, the disk as asked") {
  TpuPoolRequest request;
  request.machine_type = "m1-ultramem-160";
  request.disk_size = "3000";
  request.scopes = {"cloud-platform"};
  auto pools = NodePoolsFor("m1-pool", request);
  REQUIRE(pools);
  REQUIRE(pools->size() == 1);
  const auto& pool = pools->front();
  CHECK(pool.machine_type == "m1-ultramem-160");
  CHECK(pool.tpu_topology.empty());
  CHECK(pool.node_count == 1);
  CHECK(pool.disk_size_gb == 3000);
  CHECK(pool.oauth_scopes == std::vector<std::string>{"https://www.googleapis.com/auth/cloud-platform"});
  request.num_nodes = 2;
  request.disk_size.clear();
  pools = NodePoolsFor("m1-pool", request);
  REQUIRE(pools);
  CHECK(pools->front().node_count == 2);
  CHECK_FALSE(pools->front().disk_size_gb.has_value());  // the server's 100 GB; nothing sent
}

TEST_CASE("--disk-size reads as gcloud's: GB by default, GB and TB counting in 1024s, whole GB only") {
  using tputrain::workflow::ParseDiskSizeGb;
  const std::pair<std::string, int> good[] = {{"3000", 3000},  {"3000GB", 3000}, {"3000gib", 3000}, {"3TB", 3072},
                                              {"1.5TB", 1536}, {"10", 10},       {"65536", 65536},  {"64TiB", 65536}};
  for (const auto& [text, gb] : good) {
    INFO(text);
    auto parsed = ParseDiskSizeGb(text);
    REQUIRE(parsed);
    CHECK(*parsed == gb);
  }
  const std::pair<std::string, std::string> bad[] = {
      {"3000.5", "not a whole number of GB"},
      {"9", "smallest boot disk is 10 GB"},
      {"0", "smallest boot disk is 10 GB"},
      {"65537", "at most 64 TiB"},
      {"65TB", "at most 64 TiB"},
      {"99999999999999999999", ""},
      {"-1", ""},
      {"3000MB", ""},
      {"abc", ""},
      {"", ""},
      {"1e3", ""},
      {" 3000", ""},
  };
  for (const auto& [text, why] : bad) {
    INFO(text);
    auto parsed = ParseDiskSizeGb(text);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().kind == ErrorKind::kInvalidArgument);
    CHECK(parsed.error().message.rfind("--disk-size: expected a whole number of GB from 10 to 65536", 0) == 0);
    CHECK(parsed.error().message.find(why) != std::string::npos);
    CHECK(parsed.error().message.find('\n') == std::string::npos);
  }
}

TEST_CASE("tpu7x: a multi-host slice names the run's workload policy, no tpuTopology; one host sends neither") {
  TpuPoolRequest request;
  request.tpu_type = "tpu7x-128";
  auto pools = NodePoolsFor("iw", request);
  REQUIRE(pools);
  const auto& pool = pools->front();
  CHECK(pool.machine_type == "tpu7x-standard-4t");
  CHECK(pool.node_count == 16);
  CHECK(pool.tpu_topology.empty());
  CHECK(pool.slice_topology == "4x4x4");
  CHECK(pool.own_placement_policy);
  CHECK(pool.placement_policy.empty());  // named from the cluster and pool when it is made

  request.placement_policy = "my-wp";
  pools = NodePoolsFor("iw", request);
  REQUIRE(pools);
  CHECK(pools->front().placement_policy == "my-wp");
  CHECK_FALSE(pools->front().own_placement_policy);

  TpuPoolRequest one;
  one.tpu_type = "tpu7x-8";
  pools = NodePoolsFor("one", one);
  REQUIRE(pools);
  CHECK(pools->front().node_count == 1);
  CHECK(pools->front().tpu_topology.empty());
  CHECK(pools->front().placement_policy.empty());
  CHECK_FALSE(pools->front().own_placement_policy);

  // gcloud's form: the machine type, the policy and the hosts; the policy says the topology.
  TpuPoolRequest gcloud;
  gcloud.machine_type = "tpu7x-standard-4t";
  gcloud.placement_policy = "my-wp";
  gcloud.num_nodes = 16;
  pools = NodePoolsFor("iw", gcloud);
  REQUIRE(pools);
  CHECK(pools->front().node_count == 16);
  CHECK(pools->front().slice_topology.empty());
  CHECK(pools->front().placement_policy == "my-wp");
}

TEST_CASE("v6e-8 on one ct6e-standard-8t host: the same slice, one node, no topology (as GKE's v6e table has it)") {
  TpuPoolRequest request;
  request.tpu_type = "v6e-8";
  request.machine_type = "ct6e-standard-8t";
  auto pools = NodePoolsFor("v6e8", request);
  REQUIRE(pools);
  CHECK(pools->front().machine_type == "ct6e-standard-8t");
  CHECK(pools->front().node_count == 1);
  CHECK(pools->front().tpu_topology.empty());
  CHECK(pools->front().slice_topology == "2x4");
  TpuPoolRequest machine_only;
  machine_only.machine_type = "ct6e-standard-8t";
  pools = NodePoolsFor("v6e8", machine_only);
  REQUIRE(pools);
  CHECK(pools->front().node_count == 1);
  CHECK(pools->front().tpu_topology.empty());
  CHECK(tputrain::workflow::SliceOfPool(pools->front())->accelerator_type == "v6e-8");
  TpuPoolRequest two_hosts;
  two_hosts.tpu_type = "v6e-8";
  pools = NodePoolsFor("v6e8", two_hosts);
  REQUIRE(pools);
  CHECK(pools->front().machine_type == "ct6e-standard-4t");
  CHECK(pools->front().node_count == 2);
  CHECK(pools->front().tpu_topology == "2x4");
}

TEST_CASE("placement, versions and zones the catalog contradicts are usage errors naming the flag") {
  auto with = [](auto change) {
    TpuPoolRequest request;
    change(request);
    return request;
  };
  const std::pair<TpuPoolRequest, std::string> cases[] = {
      {with([](auto& r) { r.tpu_type = "v6e-16", r.placement_policy = "wp"; }),
       "--placement-policy: only multi-host tpu7x slices are placed by a workload policy; v6e-16 takes a TPU "
       "topology"},
      {with([](auto& r) { r.tpu_type = "tpu7x-8", r.placement_policy = "wp"; }),
       "--placement-policy: only multi-host tpu7x slices are placed by a workload policy; tpu7x-8 is one host"},
      {with([](auto& r) { r.tpu_type = "tpu7x-128", r.placement_policy = "Bad_Name"; }), "--placement-policy: "},
      {with([](auto& r) { r.machine_type = "n2-standard-8", r.placement_policy = "wp"; }), "--placement-policy: "},
      {with([](auto& r) { r.machine_type = "tpu7x-standard-4t", r.placement_policy = "wp"; }),
       "--num-nodes: required with --placement-policy"},
      {with([](auto& r) { r.tpu_type = "tpu7x-128", r.num_nodes = 8; }),
       "--num-nodes: tpu7x-128 (4x4x4) has 16 hosts, not 8"},
      {with([](auto& r) { r.tpu_type = "tpu7x-128", r.node_version = "1.33.2-gke.1240000"; }),
       "--node-version: tpu7x needs GKE 1.34.0-gke.2201000 or later, got 1.33.2-gke.1240000"},
      {with([](auto& r) { r.tpu_type = "v6e-8", r.machine_type = "ct5lp-hightpu-8t"; }),
       "--machine-type: v6e-8 runs on ct6e-standard-4t or ct6e-standard-8t, not ct5lp-hightpu-8t"},
      {with([](auto& r) { r.tpu_type = "v6e-8", r.location = "europe-west1-b"; }),
       "--location: v6e-8 is not offered in zone europe-west1-b; v6e is in "},
      {with([](auto& r) { r.tpu_type = "tpu7x-128", r.location = "us-east5"; }),
       "--location: tpu7x-128 is not offered in region us-east5; tpu7x is in us-central1-c"},
      {with([](auto& r) { r.tpu_type = "v6e-16", r.location = "us-east5", r.node_locations = {"us-east5-d"}; }),
       "--node-locations: v6e-16 is not offered in zone us-east5-d"},
  };
  for (const auto& [request, prefix] : cases) {
    auto pools = NodePoolsFor("tpu", request);
    INFO(prefix);
    REQUIRE_FALSE(pools);
    CHECK(pools.error().kind == ErrorKind::kInvalidArgument);
    CHECK(pools.error().message.rfind(prefix, 0) == 0);
    CHECK(pools.error().message.find('\n') == std::string::npos);
  }
  // --skip-zone-check goes past the catalog; a zone that has it passes.
  auto past = with([](auto& r) { r.tpu_type = "v6e-8", r.location = "europe-west1-b", r.skip_zone_check = true; });
  CHECK(NodePoolsFor("tpu", past));
  CHECK(NodePoolsFor("tpu", with([](auto& r) { r.tpu_type = "tpu7x-128", r.location = "us-central1-c"; })));
  CHECK(NodePoolsFor("tpu", with([](auto& r) { r.tpu_type = "tpu7x-128", r.node_version = "1.34"; })));
}
