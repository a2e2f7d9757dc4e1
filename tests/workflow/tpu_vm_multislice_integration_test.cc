// Multislice TPU VMs with one Ray cluster across the slices (seed 004 part C), against `tputrain
// emulator start --tpu-hosts netns` (root): the queued resource's two v5p-16 slices (four hosts)
// boot as network namespaces running real Ray 2.60 from the Ray peer; slice 0's worker 0 runs the
// head once tputrain has handed its address to both slices (nodes.patch), and `cleanup` takes it
// all away.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "workflow/tpu_vm_hosts.h"

namespace tputrain::workflow {
namespace {

using testing::EmulatorEnv;
using testing::PeerVenv;
using testing::ThroughIap;
using tputrain::testing::ProcessOptions;

// The JSON a job printed after `marker `.
nlohmann::json Printed(const std::string& out, const std::string& marker) {
  const auto at = out.find(marker + " ");
  if (at == std::string::npos) return nullptr;
  const auto start = at + marker.size() + 1;
  return nlohmann::json::parse(out.substr(start, out.find('\n', start) - start));
}

TEST_CASE("tpu-vm create --num-slices 2 --ray: one Ray cluster over two slices, two heads' resources; cleanup",
          "[integration]") {
  const std::string venv = PeerVenv("ray");
  if (!std::filesystem::exists(venv + "/bin/ray")) FAIL("no Ray peer at " + venv + ": run scripts/peers/ray.sh");
  EmulatorEnv env({"--tpu-hosts", "netns", "--host-path", venv});
  REQUIRE(env.ready());

  auto created =
      env.Tputrain({"tpu-vm", "create", "ms", "--zone", "us-east5-a", "--accelerator-type", "v5p-16", "--num-slices",
                    "2", "--ray", "--ray-start-args", "--num-cpus=1 --object-store-memory=100000000", "--ray-timeout",
                    "8m", "--run", "ms-run", "--format", "json"},
                   true, std::chrono::seconds(540));  // four Ray hosts start slowly on a loaded 2-core machine
  INFO(created.err);
  if (created.exit_code != 0) UNSCOPED_INFO(env.HostsReport());
  REQUIRE(created.exit_code == 0);
  const auto outcome = nlohmann::json::parse(created.out)["resources"][0];
  CHECK(outcome["kind"] == "queued-resource");
  CHECK(outcome["name"] == "ms");
  for (const char* slice : {"ms-0", "ms-1"}) {
    INFO(slice);
    REQUIRE(outcome["details"]["ray"][slice].size() == 2);  // v5p-16: two hosts per slice
    CHECK(outcome["details"]["ray"][slice][0]["state"] == "ready");
    CHECK(outcome["details"]["ray"][slice][1]["state"] == "ready");
  }
  CHECK(created.err.find("handed to 2 slices") != std::string::npos);

  // Both slices were told the same head: slice 0's worker 0.
  const auto state = env.State();
  const auto& first = state["tpuNodes"]["projects/p/locations/us-east5-a/nodes/ms-0"];
  const auto& second = state["tpuNodes"]["projects/p/locations/us-east5-a/nodes/ms-1"];
  const std::string head_ip = first["networkEndpoints"][0].value("ipAddress", "");
  CHECK(first["metadata"].value("tputrain-ray-head", "") == head_ip);
  CHECK(second["metadata"].value("tputrain-ray-head", "") == head_ip);
  CHECK(second["metadata"].value("tputrain-ray-slices", "") == "2");

  // One cluster: both slices' chips, each slice's own resource, and a head resource per slice
  // (Ray gives it to every worker 0), reached by the queued resource's name.
  const std::string probe =
      "import ray, json; ray.init(); print('RESOURCES', json.dumps(ray.cluster_resources())); "
      "print('NODES', json.dumps(len([n for n in ray.nodes() if n['Alive']])))";
  auto job = ThroughIap(env, {"job", "submit", "--tpu-vm", "ms", "--zone", "us-east5-a", "--", "python", "-c", probe});
  INFO(job.out << job.err);
  REQUIRE(job.exit_code == 0);
  const auto resources = Printed(job.out, "RESOURCES");
  REQUIRE(resources.is_object());
  CHECK(resources.value("TPU", 0.0) == 16.0);
  CHECK(resources.value("TPU-v5p-16-head", 0.0) == 2.0);
  CHECK(resources.value("ms-0", 0.0) == 2.0);
  CHECK(resources.value("ms-1", 0.0) == 2.0);
  CHECK(Printed(job.out, "NODES") == 4);

  // Ray's own multislice helper reserves both slices (their head resources, then a bundle per
  // host) and places one task on each of the four hosts.
  const std::string slices =
      "import ray, json\n"
      "from ray.util.tpu import slice_placement_group\n"
      "from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy\n"
      "ray.init()\n"
      "spg = slice_placement_group('2x2x2', 'v5p', num_slices=2)\n"
      "ray.get(spg.placement_group.ready(), timeout=120)\n"
      "@ray.remote(num_cpus=0)\n"
      "def where():\n"
      "    return ray.get_runtime_context().get_node_id()\n"
      "nodes = ray.get([where.options(resources={'TPU': 4}, scheduling_strategy=PlacementGroupSchedulingStrategy("
      "placement_group=spg.placement_group, placement_group_bundle_index=i)).remote() for i in "
      "range(spg.num_bundles)])\n"
      "print('SLICES', json.dumps({'bundles': spg.num_bundles, 'nodes': len(set(nodes))}))\n";
  auto placed =
      ThroughIap(env, {"job", "submit", "--tpu-vm", "ms", "--zone", "us-east5-a", "--", "python", "-c", slices});
  INFO(placed.out << placed.err);
  REQUIRE(placed.exit_code == 0);
  CHECK(Printed(placed.out, "SLICES") == nlohmann::json{{"bundles", 4}, {"nodes", 4}});

  // Named by its second slice, the head is still found on slice 0.
  auto again = ThroughIap(env, {"job", "list", "--tpu-vm", "ms-1", "--zone", "us-east5-a", "--format", "json"});
  INFO(again.err);
  CHECK(again.exit_code == 0);

  // ray-status of the queued resource's name: every slice's hosts, in order.
  auto status = env.Tputrain({"tpu-vm", "ray-status", "ms", "--zone", "us-east5-a", "--format", "json"}, false);
  INFO(status.err);
  REQUIRE(status.exit_code == 0);
  const auto rows = nlohmann::json::parse(status.out);
  REQUIRE(rows.size() == 4);
  CHECK(rows[1]["node"] == "ms-0");
  CHECK(rows[2]["node"] == "ms-1");
  CHECK(rows[3]["worker"] == "1");
  for (const auto& row : rows) CHECK(row["state"] == "ready");

  // A re-run with the same values resumes what is there and hands out nothing new; one without
  // the --ray-start-args the hosts booted with is refused, naming it.
  std::vector<std::string> again_args = {"tpu-vm",
                                         "create",
                                         "ms",
                                         "--zone",
                                         "us-east5-a",
                                         "--accelerator-type",
                                         "v5p-16",
                                         "--num-slices",
                                         "2",
                                         "--ray",
                                         "--ray-start-args",
                                         "--num-cpus=1 --object-store-memory=100000000",
                                         "--ray-timeout",
                                         "1m",
                                         "--run",
                                         "ms-run"};
  auto rerun = env.Tputrain(again_args);
  INFO(rerun.err);
  CHECK(rerun.exit_code == 0);
  CHECK(rerun.err.find("resumed") != std::string::npos);  // the run's own slices
  again_args.erase(again_args.begin() + 10, again_args.begin() + 12);
  auto without = env.Tputrain(again_args);
  CHECK(without.exit_code == 1);
  CHECK(without.err.find("--ray-start-args (metadata tputrain-ray-start-args): want (unset), have --num-cpus=1 "
                         "--object-store-memory=100000000") != std::string::npos);

  // cleanup: the queued resource with its slices; no host, process or namespace stays.
  auto cleaned = env.Tputrain({"cleanup", "--run", "ms-run", "--yes", "--format", "json"});
  INFO(cleaned.out << cleaned.err);
  REQUIRE(cleaned.exit_code == 0);
  const auto runs = nlohmann::json::parse(cleaned.out)["runs"];
  REQUIRE(runs.size() == 1);
  REQUIRE(runs[0]["resources"].size() == 1);
  CHECK(runs[0]["resources"][0]["kind"] == "queued-resource");
  CHECK(runs[0]["resources"][0]["action"] == "deleted");
  const auto after = env.State();
  CHECK(after.value("tpuNodes", nlohmann::json::object()).empty());
  CHECK(after.value("queuedResources", nlohmann::json::object()).empty());
  auto hosts = env.Get("/_emulator/tpu-hosts");
  REQUIRE(hosts);
  INFO(hosts->dump());
  CHECK(hosts->dump().find("/nodes/ms-") == std::string::npos);
  auto netns = tputrain::testing::RunProcess(ProcessOptions{{"ip", "netns", "list"}});
  CHECK(netns.out.find("-ms-0-w") == std::string::npos);
  CHECK(netns.out.find("-ms-1-w") == std::string::npos);
}

}  // namespace
}  // namespace tputrain::workflow
