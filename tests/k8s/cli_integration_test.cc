// tputrain apply | wait | delete end to end against a real kube-apiserver: `tputrain render ...
// | tputrain apply -f -`, re-apply, --dry-run, one-line errors, exit codes, and no token in
// any output. The real control plane beside it (KubeRay, the controller manager, the scheduler,
// kwok nodes) makes the RayCluster ready and finishes deletions.
#include <catch2/catch.hpp>

#include "k8s/integration_plane.h"
#include "k8s/k8s_test_util.h"

namespace tputrain::testing {
namespace {

struct Cli {
  ApiServer& server;
  std::string kubeconfig;
  std::vector<ProcessResult> runs;

  ProcessResult Run(std::vector<std::string> args, const std::string& stdin_text = "") {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.stdin_text = stdin_text;
    options.env = {{"KUBECONFIG", kubeconfig},
                   {"NO_COLOR", "1"},
                   {"XDG_STATE_HOME", kubeconfig + ".state"},
                   {"TPUTRAIN_RUN", std::nullopt}};
    auto result = RunProcess(options, std::chrono::seconds(120));
    runs.push_back(result);
    return result;
  }

  // No access token or client key in anything tputrain printed.
  void CheckNoSecrets() {
    for (const auto& run : runs) {
      for (const auto* secret : {&server.admin_token(), &server.nobody_token(), &server.google_token()}) {
        CHECK(run.out.find(*secret) == std::string::npos);
        CHECK(run.err.find(*secret) == std::string::npos);
      }
    }
  }
};

int Lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// stderr without --verbose's "http: ..." call log: what the user is told.
std::string WithoutCallLog(const std::string& text) {
  std::string kept;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    std::string_view line(text.data() + start, end - start);
    if (!line.starts_with("http: ")) kept += line;
    start = end;
  }
  return kept;
}

TEST_CASE("tputrain render | tputrain apply -f -, re-apply, dry run, wait and delete", "[integration]") {
  auto& plane = IntegrationPlane();
  auto& server = plane.server();
  AddNodePool(server.admin(), V6eSlicePool("cli", "v6e-4x4"));  // the rendered v6e-16 worker group's slice
  std::string ns = server.NewNamespace("cli");
  CreateObject(server.admin(), "/api/v1/namespaces/" + ns + "/serviceaccounts",
               {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "ray"}}}});
  Cli cli{server, server.WriteKubeconfig("cli-" + ns, server.admin_token(), ns)};

  auto rendered = cli.Run({"render", "raycluster-maxtext", "--set", "KSA_NAME=ray", "--set", "DOCKER_IMAGE=img",
                           "--set", "GS_BUCKET=b", "--set", "RAY_CLUSTER_NAME=ray"});
  REQUIRE(rendered.exit_code == 0);

  auto applied = cli.Run({"apply", "-f", "-"}, rendered.out);
  INFO(applied.err);
  REQUIRE(applied.exit_code == 0);
  CHECK(applied.out == "RayCluster " + ns + "/ray created\n");

  // The run ledger holds it, so that `tputrain cleanup` can delete it.
  auto ledger_entry = [&]() -> nlohmann::json {
    auto shown = cli.Run({"runs", "show", "--format", "json"});
    if (shown.exit_code != 0) return nullptr;
    const auto ledger = nlohmann::json::parse(shown.out);
    for (const auto& entry : ledger["entries"]) {
      if (entry["kind"] == "k8s-object" && entry["name"].get<std::string>().ends_with("|RayCluster|" + ns + "|ray")) {
        return entry;
      }
    }
    return nullptr;
  };
  auto recorded = ledger_entry();
  REQUIRE(recorded.is_object());
  CHECK(recorded["state"] == "created");
  CHECK(recorded["owned"] == true);

  auto again = cli.Run({"apply", "-f", "-", "--verbose"}, rendered.out);
  REQUIRE(again.exit_code == 0);
  CHECK(again.out == "RayCluster " + ns + "/ray unchanged\n");

  auto dry = cli.Run({"apply", "-f", "-", "--dry-run", "--format", "json"},
                     rendered.out +
                         "---\n"
                         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n");
  INFO(dry.err);
  REQUIRE(dry.exit_code == 0);
  auto json = nlohmann::json::parse(dry.out);
  REQUIRE(json.size() == 2);
  CHECK(json[0]["kind"] == "ConfigMap");
  CHECK(json[0]["action"] == "created");
  CHECK(json[0]["dryRun"] == true);
  auto extra = server.admin().Send("GET", "/api/v1/namespaces/" + ns + "/configmaps/extra");
  REQUIRE(extra);
  CHECK(extra->status == 404);

  // KubeRay's cluster is not ready while its head's container has not started.
  std::string head = plane.WaitScheduledPod(ns, "ray.io/cluster=ray,ray.io/node-type=head");
  auto timed_out = cli.Run({"wait", "raycluster/ray", "--for", "ready", "--timeout", "1s"});
  CHECK(timed_out.exit_code == 1);
  CHECK(timed_out.err.find("timed out after 1s waiting for RayCluster " + ns + "/ray to be ready") !=
        std::string::npos);

  plane.StartPod(ns, head);
  auto ready = cli.Run({"wait", "raycluster/ray", "--for", "ready", "--timeout", "60s"});
  INFO(ready.err);
  CHECK(ready.exit_code == 0);
  CHECK(ready.out == "RayCluster " + ns + "/ray ready\n");

  // Foreground deletion, not waiting for the garbage collector to finish it.
  auto deleted = cli.Run({"delete", "-f", "-", "--no-wait", "--yes"}, rendered.out);
  INFO(deleted.err);
  CHECK(deleted.exit_code == 0);
  CHECK(deleted.out == "RayCluster " + ns + "/ray deleted\n");
  CHECK(ledger_entry()["state"] == "deleted");

  // What `apply` made, `cleanup` deletes (in the foreground: the garbage collector finishes it).
  auto config = cli.Run({"apply", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: made\n");
  REQUIRE(config.exit_code == 0);
  const std::string made = "/api/v1/namespaces/" + ns + "/configmaps/made";
  auto cleaned = cli.Run({"cleanup", "--yes"});
  INFO(cleaned.err);
  CHECK(cleaned.exit_code == 0);
  auto gone = server.admin().Send("GET", made);
  REQUIRE(gone);
  CHECK(gone->status == 404);
  cli.CheckNoSecrets();
  RemoveNodePools(server.admin(), "cli");
}

TEST_CASE("tputrain apply reports manifest errors on one line and exits non-zero", "[integration]") {
  auto& server = ApiServer::Shared();
  server.EnsureCrds();
  std::string ns = server.NewNamespace("clierr");
  Cli cli{server, server.WriteKubeconfig("clierr-" + ns, server.admin_token(), ns)};

  auto missing = cli.Run({"apply", "-f", "-"},
                         "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata:\n  name: bad\n"
                         "spec:\n  workerGroupSpecs: []\n");
  // Caught against the installed CRD's schema before anything is sent: a usage error.
  CHECK(missing.exit_code == 2);
  CHECK(Lines(missing.err) == 1);
  CHECK(
      missing.err.find("RayCluster " + ns + "/bad: invalid manifest: spec: required field \"headGroupSpec\" missing") !=
      std::string::npos);
  // Nothing was sent, so the run ledger holds nothing of it to clean up.
  auto shown = cli.Run({"runs", "show", "--format", "json"});
  REQUIRE(shown.exit_code == 0);
  const auto ledger = nlohmann::json::parse(shown.out);
  int recorded = 0;
  for (const auto& entry : ledger["entries"]) {
    if (!entry["name"].get<std::string>().ends_with("|RayCluster|" + ns + "|bad")) continue;
    ++recorded;
    CHECK(entry["state"] == "deleted");
  }
  CHECK(recorded == 1);

  auto typed = cli.Run({"apply", "-f", "-", "--verbose"}, RayClusterYaml("typed", ns, "{num-cpus: 1}"));
  CHECK(typed.exit_code != 0);
  // --verbose logs the Kubernetes calls (one line each); the error itself is still one line.
  CHECK(typed.err.find("http: GET " + server.server()) != std::string::npos);
  CHECK(Lines(WithoutCallLog(typed.err)) == 1);
  CHECK(typed.err.find("invalid manifest") != std::string::npos);
  CHECK(typed.err.find("rayStartParams") != std::string::npos);

  auto no_name = cli.Run({"apply", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n");
  CHECK(no_name.exit_code == 2);
  CHECK(no_name.err.find("metadata.name is required") != std::string::npos);

  auto wrong_ns = cli.Run({"apply", "-f", "-", "-n", "elsewhere"},
                          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: " + ns + "\n");
  CHECK(wrong_ns.exit_code == 2);
  CHECK(wrong_ns.err.find("does not match --namespace") != std::string::npos);

  Cli nobody{server, server.WriteKubeconfig("nobody-" + ns, server.nobody_token(), ns)};
  auto forbidden = nobody.Run({"apply", "-f", "-"}, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
  CHECK(forbidden.exit_code == 1);
  CHECK(Lines(forbidden.err) == 1);
  CHECK(forbidden.err.find("forbidden") != std::string::npos);
  CHECK(forbidden.err.find("test-nobody") != std::string::npos);

  cli.CheckNoSecrets();
  nobody.CheckNoSecrets();
}

}  // namespace
}  // namespace tputrain::testing
