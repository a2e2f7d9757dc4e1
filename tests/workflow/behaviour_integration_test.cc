// Against `tputrain emulator start`: tputrain's bodies against gcloud's for the seed commands,
// four node pools created together, and a stockout.
#include <algorithm>
#include <ctime>
#include <fstream>

#include <catch2/catch.hpp>

#include "emulator_env.h"
#include "tputrain/emulator/schema.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

// The body of the last `method` request whose path ends in `suffix`.
json LastBody(EmulatorEnv& env, const std::string& method, const std::string& suffix) {
  json found;
  for (const auto& entry : env.Requests()) {
    std::string path = entry.value("path", "");
    if (entry.value("method", "") == method && path.size() >= suffix.size() &&
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      found = entry["body"].is_string() ? json::parse(entry["body"].get<std::string>()) : entry["body"];
    }
  }
  return found;
}

void Erase(json& body, const std::string& pointer) {
  json::json_pointer at(pointer);
  if (!body.contains(at)) return;
  json& parent = body[at.parent_pointer()];
  parent.erase(at.back());
  if (parent.empty() && !at.parent_pointer().empty()) Erase(body, at.parent_pointer().to_string());
}

// Runs gcloud then tputrain for one intent (emulator reset in between, `prepare` run first each
// time) and returns both create bodies.
std::pair<json, json> Capture(EmulatorEnv& env, const std::vector<std::string>& prepare,
                              const std::vector<std::string>& gcloud, const std::vector<std::string>& tputrain,
                              const std::string& method, const std::string& suffix) {
  env.Reset();
  if (!prepare.empty()) REQUIRE(env.Tputrain(prepare).exit_code == 0);
  auto g = env.Gcloud(gcloud);
  INFO("gcloud: " << g.err);
  REQUIRE(g.exit_code == 0);
  json gcloud_body = LastBody(env, method, suffix);
  env.Reset();
  if (!prepare.empty()) REQUIRE(env.Tputrain(prepare).exit_code == 0);
  auto t = env.Tputrain(tputrain);
  INFO("tputrain: " << t.err);
  REQUIRE(t.exit_code == 0);
  return {gcloud_body, LastBody(env, method, suffix)};
}

void CheckValid(const std::string& api, const std::string& schema, const json& body, const std::string& method_id) {
  auto schemas = emulator::SchemaSet::Builtin();
  REQUIRE(schemas);
  auto violation = schemas->Validate(api, schema, body, method_id);
  INFO(body.dump() << "\n" << (violation ? violation->field + ": " + violation->description : ""));
  CHECK(!violation.has_value());
}

TEST_CASE("tputrain's create bodies equal gcloud's for the seed commands, but for listed deliberate differences",
          "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const std::vector<std::string> cluster = {"cluster", "create", "ray-tpu", "--location", "us-east5-b", "--run", "r1"};

  SECTION("seed 001 cluster") {
    auto [gcloud, ours] =
        Capture(env, {},
                {"container", "clusters", "create", "ray-tpu", "--addons=RayOperator,GcsFuseCsiDriver",
                 "--machine-type=n1-standard-16", "--workload-pool=p.svc.id.goog", "--location=us-east5-b"},
                {"cluster", "create", "ray-tpu", "--location", "us-east5-b", "--ray-operator", "--gcs-fuse",
                 "--workload-identity", "--machine-type", "n1-standard-16", "--run", "r1"},
                "POST", "/clusters");
    CheckValid("container", "CreateClusterRequest", ours, "container.projects.locations.clusters.create");
    // Deliberate: the run label; and tputrain enables only the add-ons asked for, where gcloud's
    // --addons also sends every unlisted default add-on (HTTP load balancing, HPA) as disabled.
    CHECK(ours["cluster"]["resourceLabels"] == json{{"tputrain-run", "r1"}});
    Erase(ours, "/cluster/resourceLabels");
    for (const char* addon :
         {"horizontalPodAutoscaling", "httpLoadBalancing", "kubernetesDashboard", "networkPolicyConfig"}) {
      Erase(gcloud, std::string("/cluster/addonsConfig/") + addon);
    }
    CHECK(ours == gcloud);
  }
  SECTION("seed 002 regional cluster") {
    auto [gcloud, ours] =
        Capture(env, {},
                {"container", "clusters", "create", "jetstream", "--cluster-version=1.32.4-gke.1415000",
                 "--location=us-east5", "--scopes=cloud-platform", "--machine-type=n2-standard-32"},
                {"cluster", "create", "jetstream", "--cluster-version", "1.32.4-gke.1415000", "--location", "us-east5",
                 "--scopes", "cloud-platform", "--machine-type", "n2-standard-32", "--run", "r1"},
                "POST", "/clusters");
    CheckValid("container", "CreateClusterRequest", ours, "container.projects.locations.clusters.create");
    Erase(ours, "/cluster/resourceLabels");
    CHECK(ours == gcloud);
  }
  SECTION("seed 001 v6e 4x4 node pool") {
    auto [gcloud, ours] =
        Capture(env, cluster,
                {"container", "node-pools", "create", "v6e-16", "--location=us-east5-b", "--cluster=ray-tpu",
                 "--machine-type=ct6e-standard-4t", "--threads-per-core=1", "--tpu-topology=4x4", "--num-nodes=4"},
                {"nodepool", "create", "v6e-16", "--location", "us-east5-b", "--cluster", "ray-tpu", "--tpu-type",
                 "v6e-16", "--threads-per-core", "1", "--run", "r1"},
                "POST", "/nodePools");
    CheckValid("container", "CreateNodePoolRequest", ours, "container.projects.locations.clusters.nodePools.create");
    CHECK(ours["nodePool"]["config"]["resourceLabels"] == json{{"tputrain-run", "r1"}});
    Erase(ours, "/nodePool/config/resourceLabels");
    CHECK(ours == gcloud);
  }
  SECTION("seed 002 COMPACT pool with GCE_METADATA") {
    const std::vector<std::string> regional = {"cluster",  "create", "jetstream", "--location",
                                               "us-east5", "--run",  "r1"};
    auto [gcloud, ours] = Capture(
        env, regional,
        {"container", "node-pools", "create", "multihost-np", "--location=us-east5", "--node-locations=us-east5-b",
         "--cluster=jetstream", "--machine-type=ct6e-standard-4t", "--num-nodes=4", "--tpu-topology=4x4", "--scopes",
         "cloud-platform", "--placement-type=COMPACT", "--workload-metadata=GCE_METADATA"},
        {"nodepool",
         "create",
         "multihost-np",
         "--location",
         "us-east5",
         "--node-locations",
         "us-east5-b",
         "--cluster",
         "jetstream",
         "--machine-type",
         "ct6e-standard-4t",
         "--num-nodes",
         "4",
         "--tpu-topology",
         "4x4",
         "--scopes",
         "cloud-platform",
         "--placement-type",
         "COMPACT",
         "--workload-metadata",
         "GCE_METADATA",
         "--run",
         "r1"},
        "POST", "/nodePools");
    CheckValid("container", "CreateNodePoolRequest", ours, "container.projects.locations.clusters.nodePools.create");
    Erase(ours, "/nodePool/config/resourceLabels");
    CHECK(ours == gcloud);
  }
  SECTION("seed 002 CPU pool for the checkpoint converter") {
    const std::vector<std::string> regional = {"cluster",  "create", "jetstream", "--location",
                                               "us-east5", "--run",  "r1"};
    auto [gcloud, ours] =
        Capture(env, regional,
                {"container", "node-pools", "create", "m1-pool", "--location=us-east5", "--cluster=jetstream",
                 "--machine-type=m1-ultramem-160", "--num-nodes=1", "--disk-size=3000", "--scopes=cloud-platform"},
                {"nodepool", "create", "m1-pool", "--location", "us-east5", "--cluster", "jetstream", "--machine-type",
                 "m1-ultramem-160", "--disk-size", "3000", "--scopes", "cloud-platform", "--run", "r1"},
                "POST", "/nodePools");
    CheckValid("container", "CreateNodePoolRequest", ours, "container.projects.locations.clusters.nodePools.create");
    CHECK(ours["nodePool"]["config"]["diskSizeGb"] == 3000);
    CHECK(ours["nodePool"]["initialNodeCount"] == 1);  // gcloud's default is 3; the seed and tputrain say 1
    Erase(ours, "/nodePool/config/resourceLabels");
    CHECK(ours == gcloud);
  }
  SECTION("seed 003 v5e 4x8 pool") {
    auto [gcloud, ours] =
        Capture(env, cluster,
                {"container", "node-pools", "create", "tpu1", "--location=us-east5-b",
                 "--machine-type=ct5lp-hightpu-4t", "--tpu-topology=4x8", "--num-nodes=8", "--cluster=ray-tpu"},
                {"nodepool", "create", "tpu1", "--location", "us-east5-b", "--machine-type", "ct5lp-hightpu-4t",
                 "--tpu-topology", "4x8", "--cluster", "ray-tpu", "--run", "r1"},
                "POST", "/nodePools");
    Erase(ours, "/nodePool/config/resourceLabels");
    CHECK(ours == gcloud);
  }
  SECTION("seed 004 TPU VMs") {
    for (const auto& [type, version] :
         std::vector<std::pair<std::string, std::string>>{{"v5p-8", "v2-alpha-tpuv5"}, {"v6e-16", "v2-alpha-tpuv6e"}}) {
      auto [gcloud, ours] =
          Capture(env, {},
                  {"compute", "tpus", "tpu-vm", "create", "node-a", "--zone=us-east5-a", "--accelerator-type=" + type,
                   "--version=" + version},
                  {"tpu-vm", "create", "node-a", "--zone", "us-east5-a", "--accelerator-type", type, "--run", "r1"},
                  "POST", "/nodes");
      CheckValid("tpu", "Node", ours, "tpu.projects.locations.nodes.create");
      CHECK(ours["labels"] == json{{"tputrain-run", "r1"}});
      Erase(ours, "/labels");
      CHECK(ours == gcloud);
    }
  }
}

int64_t ParseRfc3339Ms(const std::string& text) {
  std::tm tm{};
  strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  int64_t ms = static_cast<int64_t>(timegm(&tm)) * 1000;
  auto dot = text.find('.');
  if (dot != std::string::npos) ms += std::stoi(text.substr(dot + 1, 3));
  return ms;
}

TEST_CASE("four node pools are created together: every create is sent before the first one finishes", "[integration]") {
  EmulatorEnv env({}, "1s");
  REQUIRE(env.ready());
  REQUIRE(env.Tputrain({"cluster", "create", "saxml", "--location", "us-west4", "--run", "four"}).exit_code == 0);
  auto created = env.Tputrain({"nodepool", "create", "tpu", "--cluster", "saxml", "--location", "us-west4",
                               "--tpu-type", "v5litepod-32", "--num-slices", "4", "--run", "four"});
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  std::vector<int64_t> post_starts;
  for (const auto& entry : env.Requests()) {
    std::string path = entry.value("path", "");
    if (entry["method"] == "POST" && path.ends_with("/nodePools") && entry["status"] == 200) {
      post_starts.push_back(entry["start"].get<int64_t>());
    }
  }
  REQUIRE(post_starts.size() == 4);
  int64_t first_finish = INT64_MAX;
  for (const auto& [key, op] : env.State()["containerOperations"].items()) {
    if (op.value("operationType", "") == "CREATE_NODE_POOL") {
      first_finish = std::min(first_finish, ParseRfc3339Ms(op.value("endTime", "")));
    }
  }
  CHECK(*std::max_element(post_starts.begin(), post_starts.end()) < first_finish);
}

TEST_CASE("a node pool that ends in a stockout exits non-zero with the server's message; the ledger says what exists",
          "[integration]") {
  EmulatorEnv env({"--faults", "nodePools.create=stockout@first:1"});
  REQUIRE(env.ready());
  REQUIRE(env.Tputrain({"cluster", "create", "ray-tpu", "--location", "us-east5-b", "--run", "stock"}).exit_code == 0);
  auto failed = env.Tputrain({"nodepool", "create", "v6e-16", "--cluster", "ray-tpu", "--location", "us-east5-b",
                              "--tpu-type", "v6e-16", "--run", "stock"});
  INFO(failed.err);
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("Not enough resources available") != std::string::npos);
  CHECK(failed.err.find("us-east5-b") != std::string::npos);
  CHECK(failed.err.find("ct6e-standard-4t") != std::string::npos);
  CHECK(failed.err.find("--capacity spot") != std::string::npos);
  auto shown = env.Tputrain({"runs", "show", "--run", "stock", "--format", "json"});
  REQUIRE(shown.exit_code == 0);
  json ledger = json::parse(shown.out);
  std::map<std::string, std::string> states;
  for (const auto& entry : ledger["entries"]) states[entry["kind"]] = entry["state"];
  CHECK(states["cluster"] == "created");
  // GKE keeps a stocked-out pool (status ERROR): it exists, so cleanup must delete it, but it never
  // ran: `failed`, not `created` (which would bill it and let a re-run adopt it).
  CHECK(states["nodepool"] == "failed");
}

TEST_CASE("--dry-run prints each request and sends nothing", "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  auto planned = env.Tputrain({"cluster", "create", "ray-tpu", "--location", "us-east5-b", "--ray-operator",
                               "--tpu-type", "v6e-16", "--num-slices", "2", "--dry-run", "--run", "dry"});
  INFO(planned.err);
  REQUIRE(planned.exit_code == 0);
  CHECK(planned.out.find("POST http://127.0.0.1:") != std::string::npos);
  CHECK(planned.out.find("/v1/projects/p/locations/us-east5-b/clusters/ray-tpu/nodePools") != std::string::npos);
  CHECK(planned.out.find("\"rayOperatorConfig\":{\"enabled\":true}") != std::string::npos);
  CHECK(planned.out.find("\"name\":\"v6e-16-1\"") != std::string::npos);
  CHECK(env.Requests().empty());
}

TEST_CASE("a run whose ledger cannot be read creates nothing: every create is refused before any call",
          "[integration]") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  const fs::path ledger = fs::path(env.state_dir()) / "broken.json";
  const fs::path kubeconfig = env.dir() / "kubeconfig.yaml";
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "
                               "'https://127.0.0.1:9'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, "
                               "context: {cluster: c, user: u}}]\ncurrent-context: x\n";
  const fs::path manifest = env.dir() / "cm.yaml";
  std::ofstream(manifest) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\n";
  const std::vector<std::vector<std::string>> creates = {
      {"tpu-vm", "create", "vm", "--zone", "us-east5-a", "--accelerator-type", "v5p-8"},
      {"tpu-vm", "create", "rv", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--ray", "--iap-firewall",
       "create"},
      {"bucket", "create", "gs://p-ckpt"},
      {"cluster", "create", "c", "--location", "us-east5-b"},
      {"registry", "create", "repo", "--location", "us-east5"},
      {"iam", "service-account", "create", "trainer-sa"},
      {"apply", "-f", manifest.string(), "--kubeconfig", kubeconfig.string()},
  };
  fs::create_directories(ledger.parent_path());
  for (const std::string& broken : {std::string(R"({"version": 1, "run_id": "broken", "entries": [{"kind": "bu)"),
                                    std::string(R"({"run_id": "broken", "entries": "none"})")}) {
    std::ofstream(ledger) << broken;
    for (auto args : creates) {
      args.insert(args.end(), {"--run", "broken"});
      auto refused = env.Tputrain(args);
      INFO(args[0] << " " << args[1] << " with " << broken << "\nstderr: " << refused.err);
      CHECK(refused.exit_code == 1);
      CHECK(refused.out.empty());
      CHECK(refused.err.rfind("ERROR: run ledger " + ledger.string() + " cannot be read (", 0) == 0);
      CHECK(refused.err.find("mv " + ledger.string() + " " + ledger.string() + ".broken") != std::string::npos);
      CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
    }
    CHECK(env.Requests().empty());
    std::ifstream after(ledger);
    CHECK(std::string(std::istreambuf_iterator<char>(after), {}) == broken);
  }
}

}  // namespace
}  // namespace tputrain::workflow::testing
