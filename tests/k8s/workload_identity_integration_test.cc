// The seeds' workload-identity route end to end: a Google service account on the emulator, the
// KSA's roles/iam.workloadIdentityUser binding on it, and the KSA annotated on a real API server.
#include <unistd.h>

#include <filesystem>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/gke_emulator.h"
#include "k8s/integration_plane.h"
#include "k8s/k8s_test_util.h"

namespace tputrain::testing {
namespace {

TEST_CASE("bind-workload-identity --gsa --annotate-ksa binds and annotates the KSA; cleanup removes both",
          "[integration]") {
  auto& server = IntegrationPlane().server();  // its garbage collector finishes the deletion
  const std::string ns = server.NewNamespace("wi");
  char home_template[] = "/tmp/tputrain-wi-XXXXXX";
  REQUIRE(mkdtemp(home_template) != nullptr);
  const std::string home = home_template;
  GkeEmulator emulator(server, home);
  REQUIRE(emulator.ready());
  WriteTextFile(home + "/google-token", server.google_token() + "\n");
  const std::string kubeconfig = server.WriteKubeconfig("wi-" + ns, server.admin_token(), ns);
  auto tputrain = [&](std::vector<std::string> args) {
    ProcessOptions options;
    options.argv = {TputrainBinary()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.argv.insert(options.argv.end(), {"--run", "r-wi", "--state-dir", home + "/state"});
    options.env = {{"CLOUDSDK_API_ENDPOINT_OVERRIDES_IAM", emulator.url() + "/"},
                   {"CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDRESOURCEMANAGER", emulator.url() + "/"},
                   {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", home + "/google-token"},
                   {"CLOUDSDK_CONFIG", home + "/gcloud"},
                   {"CLOUDSDK_CORE_PROJECT", "p"},
                   {"TPUTRAIN_RUN", std::nullopt},
                   {"XDG_STATE_HOME", home + "/xdg"}};
    return RunProcess(options, std::chrono::seconds(120));
  };
  auto account = tputrain({"iam", "service-account", "create", "sax-server"});
  INFO(account.err);
  REQUIRE(account.exit_code == 0);

  const std::string gsa = "sax-server@p.iam.gserviceaccount.com";
  auto bound = tputrain({"iam", "bind-workload-identity", "--ksa", ns + "/sax-sa", "--gsa", gsa, "--annotate-ksa",
                         "--kubeconfig", kubeconfig, "--format", "json"});
  INFO(bound.err);
  REQUIRE(bound.exit_code == 0);
  auto live = server.admin().GetJson("/api/v1/namespaces/" + ns + "/serviceaccounts/sax-sa", "ksa");
  REQUIRE(live);
  CHECK((*live)["metadata"]["annotations"]["iam.gke.io/gcp-service-account"] == gsa);

  // serve up then applies the same account from the Saxml template, without the annotation:
  // the annotation stays (it belongs to another field manager).
  WriteTextFile(home + "/sax-sa.yaml",
                "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sax-sa\n  labels:\n"
                "    app.kubernetes.io/managed-by: tputrain\n");
  auto applied = tputrain({"apply", "-f", home + "/sax-sa.yaml", "--kubeconfig", kubeconfig});
  INFO(applied.err);
  REQUIRE(applied.exit_code == 0);
  live = server.admin().GetJson("/api/v1/namespaces/" + ns + "/serviceaccounts/sax-sa", "ksa");
  REQUIRE(live);
  CHECK((*live)["metadata"]["annotations"]["iam.gke.io/gcp-service-account"] == gsa);

  // Without --gsa there is nothing to annotate: one line, before any call.
  auto refused = tputrain({"iam", "bind-workload-identity", "--ksa", ns + "/sax-sa", "--bucket", "b-ckpt", "--role",
                           "roles/storage.objectUser", "--annotate-ksa", "--kubeconfig", kubeconfig});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.rfind("ERROR: --annotate-ksa: only with --gsa", 0) == 0);

  // Foreground deletion waits for the garbage collector.
  auto cleaned = tputrain({"cleanup", "--yes"});
  INFO(cleaned.err);
  CHECK(cleaned.exit_code == 0);
  auto gone = server.admin().Send("GET", "/api/v1/namespaces/" + ns + "/serviceaccounts/sax-sa", "", "");
  REQUIRE(gone);
  CHECK(gone->status == 404);
  std::filesystem::remove_all(home);
}

}  // namespace
}  // namespace tputrain::testing
