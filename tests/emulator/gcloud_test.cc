// The real gcloud (Cloud SDK 528, /usr/bin/gcloud) against `tputrain emulator start`: every seed
// tutorial command must succeed, a wrong TPU node count must fail with the emulator's message,
// and the emulator's state must survive a restart.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "emulator/gcloud_fixture.h"

namespace tputrain::emulator {
namespace {

using namespace gcloud_testing;  // NOLINT(google-build-using-namespace): the fixture is this file's vocabulary

TEST_CASE("the real gcloud runs the seed tutorials' commands against the emulator") {
  REQUIRE(access(kGcloud, X_OK) == 0);  // the judge must be installed: no gcloud, no pass
  GcloudAgainstEmulator env;
  REQUIRE(env.Start());
  CHECK(env.EmulatorOut().find("CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER=") != std::string::npos);

  RunParallel(
      env, {
               {"container", "clusters", "create", "ray-tpu", "--addons=RayOperator,GcsFuseCsiDriver",
                "--machine-type=n1-standard-16", "--workload-pool=p.svc.id.goog", "--location=us-east5-b"},
               {"container", "clusters", "create", "jetstream", "--cluster-version=1.32.4-gke.1415000",
                "--location=us-east5", "--scopes=cloud-platform", "--machine-type=n2-standard-32"},
               {"container", "clusters", "create-auto", "ray-auto", "--enable-ray-operator", "--location=us-central1"},
           });
  auto clusters = env.State()->at("clusters");
  CHECK(clusters["projects/p/locations/us-east5-b/clusters/ray-tpu"]["addonsConfig"]["rayOperatorConfig"]["enabled"] ==
        true);
  CHECK(clusters["projects/p/locations/us-east5/clusters/jetstream"]["currentMasterVersion"] == "1.32.4-gke.1415000");

  RunParallel(
      env,
      {
          {"container", "node-pools", "create", "v6e-16", "--location=us-east5-b", "--cluster=ray-tpu",
           "--machine-type=ct6e-standard-4t", "--threads-per-core=1", "--tpu-topology=4x4", "--num-nodes=4"},
          {"container", "node-pools", "create", "tpu1", "--location=us-east5-b", "--cluster=ray-tpu",
           "--machine-type=ct5lp-hightpu-4t", "--tpu-topology=4x8", "--num-nodes=8"},
          {"container", "node-pools", "create", "multihost-np", "--location=us-east5", "--node-locations=us-east5-b",
           "--cluster=jetstream", "--machine-type=ct6e-standard-4t", "--num-nodes=2", "--tpu-topology=2x4", "--scopes",
           "cloud-platform", "--placement-type=COMPACT", "--workload-metadata=GCE_METADATA"},
      });

  auto wrong =
      env.Gcloud({"container", "node-pools", "create", "v6e-wrong", "--location=us-east5-b", "--cluster=ray-tpu",
                  "--machine-type=ct6e-standard-4t", "--tpu-topology=4x4", "--num-nodes=3"});
  CHECK(wrong.exit_code != 0);
  CHECK(wrong.err.find("code=400") != std::string::npos);
  CHECK(wrong.err.find("must have exactly 4 nodes") != std::string::npos);

  Run(env, {"container", "clusters", "describe", "ray-tpu", "--location=us-east5-b"});
  auto list = env.Gcloud({"container", "clusters", "list", "--format=value(name)"});
  ExpectSuccess({"container", "clusters", "list"}, list);
  CHECK(Lines(list.out) == std::set<std::string>{"jetstream", "ray-auto", "ray-tpu"});
  Run(env, {"container", "clusters", "get-credentials", "ray-tpu", "--location=us-east5-b"});
  std::string kubeconfig = ReadText(env.dir() / "kubeconfig");
  CHECK(kubeconfig.find("current-context: gke_p_us-east5-b_ray-tpu") != std::string::npos);
  CHECK(kubeconfig.find("server: https://127.0.0.1") != std::string::npos);

  Run(env, {"compute", "tpus", "tpu-vm", "create", "v5p-node", "--zone=us-east5-a", "--accelerator-type=v5p-8",
            "--version=v2-alpha-tpuv5"});
  auto described =
      env.Gcloud({"compute", "tpus", "tpu-vm", "describe", "v5p-node", "--zone=us-east5-a", "--format=value(state)"});
  CHECK(described.out == "READY\n");
  // nodes.patch as gcloud sends it (updateMask from the flags, the node it read as the body).
  Run(env, {"compute", "tpus", "tpu-vm", "update", "v5p-node", "--zone=us-east5-a",
            "--update-metadata=startup-script=echo hello", "--update-labels=team=ml"});
  auto patched = env.Gcloud({"compute", "tpus", "tpu-vm", "describe", "v5p-node", "--zone=us-east5-a",
                             "--format=value(metadata.startup-script,labels.team,state)"});
  CHECK(patched.out == "echo hello\tml\tREADY\n");

  Run(env, {"storage", "buckets", "create", "gs://tputrain-ckpt"});
  Run(env, {"storage", "buckets", "add-iam-policy-binding", "gs://tputrain-ckpt", "--member",
            "principal://iam.googleapis.com/projects/" + std::to_string(ProjectNumber("p")) +
                "/locations/global/workloadIdentityPools/p.svc.id.goog/subject/ns/default/sa/ray-ksa",
            "--role", "roles/storage.objectUser"});
  Run(env, {"iam", "service-accounts", "create", "jetstream-pathways"});
  auto number = env.Gcloud({"projects", "describe", "p", "--format=value(projectNumber)"});
  CHECK(number.out == std::to_string(ProjectNumber("p")) + "\n");
  Run(env, {"projects", "add-iam-policy-binding", "p", "--member",
            "serviceAccount:jetstream-pathways@p.iam.gserviceaccount.com", "--role", "roles/storage.objectUser"});

  // State survives a restart: what gcloud created is still there for gcloud to read and delete.
  CHECK(env.Stop() == 0);
  REQUIRE(env.Start());
  auto after =
      env.Gcloud({"container", "clusters", "describe", "ray-tpu", "--location=us-east5-b", "--format=value(status)"});
  CHECK(after.out == "RUNNING\n");
  auto pools = env.Gcloud(
      {"container", "node-pools", "list", "--cluster=ray-tpu", "--location=us-east5-b", "--format=value(name)"});
  CHECK(Lines(pools.out) == std::set<std::string>{"default-pool", "tpu1", "v6e-16"});
  CHECK(env.State()->at("policies").contains("projects/p"));

  RunParallel(env, {
                       {"container", "clusters", "delete", "ray-tpu", "--location=us-east5-b"},
                       {"container", "clusters", "delete", "jetstream", "--location=us-east5"},
                       {"container", "clusters", "delete", "ray-auto", "--location=us-central1"},
                   });
  Run(env, {"compute", "tpus", "tpu-vm", "delete", "v5p-node", "--zone=us-east5-a"});
  Run(env, {"storage", "buckets", "delete", "gs://tputrain-ckpt"});

  auto dumped = RunProcess({{tputrain::testing::TputrainBinary(), "emulator", "state", "--url", env.base_url()}});
  CHECK(dumped.exit_code == 0);
  auto state = nlohmann::json::parse(dumped.out);
  CHECK(state["clusters"].empty());
  CHECK(state["tpuNodes"].empty());
  CHECK(state["buckets"].empty());
  CHECK(state["serviceAccounts"].contains("jetstream-pathways@p.iam.gserviceaccount.com"));
  CHECK(env.Requests().dump().find(kToken) == std::string::npos);  // the log never keeps tokens
}

// Seed 001's `gcloud services enable container.googleapis.com`: the emulator starts with the API
// disabled and answers SERVICE_DISABLED as Google does until gcloud or tputrain enables it.
TEST_CASE("Service Usage: gcloud and tputrain enable what the emulator starts disabled, with the same request") {
  REQUIRE(access(kGcloud, X_OK) == 0);
  GcloudAgainstEmulator env;
  REQUIRE(env.Start({"--disabled-apis", "container,tpu,iam"}));

  auto refused = env.Tputrain({"cluster", "list", "--location", "us-east5-b"});
  INFO("tputrain cluster list: " << refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("container.googleapis.com is not enabled in this project: run 'tputrain services enable "
                         "container.googleapis.com', or run the command again with --enable-apis") !=
        std::string::npos);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);

  Run(env, {"services", "enable", "tpu.googleapis.com"});
  auto enabled = env.Tputrain({"services", "enable", "iam"});
  INFO("tputrain services enable: " << enabled.err);
  CHECK(enabled.exit_code == 0);
  CHECK(enabled.out == "iam.googleapis.com: enabled\n");
  // tputrain's request is gcloud's: POST .../services/S:enable with an empty object.
  std::vector<nlohmann::json> enables;
  const nlohmann::json log = env.Requests();
  for (const auto& request : log["requests"]) {
    if (request["path"].get<std::string>().find(":enable") != std::string::npos) enables.push_back(request);
  }
  REQUIRE(enables.size() == 2);
  CHECK(enables[0]["path"] == "/v1/projects/p/services/tpu.googleapis.com:enable");
  CHECK(enables[1]["path"] == "/v1/projects/p/services/iam.googleapis.com:enable");
  CHECK(enables[0]["method"] == enables[1]["method"]);
  CHECK(enables[0]["body"] == enables[1]["body"]);

  // --enable-apis: the create meets SERVICE_DISABLED, enables the API, carries on.
  auto created = env.Tputrain({"cluster", "create", "c1", "--location", "us-east5-b", "--enable-apis", "--async"});
  INFO("tputrain cluster create --enable-apis: " << created.err);
  CHECK(created.exit_code == 0);
  auto listed = env.Gcloud({"services", "list", "--format", "value(config.name)"});
  ExpectSuccess({"services", "list"}, listed);
  for (const char* service : {"container.googleapis.com", "tpu.googleapis.com", "iam.googleapis.com"}) {
    CHECK(Lines(listed.out).count(service) == 1);
  }
  auto ours = env.Tputrain({"services", "list", "--format", "json"});
  CHECK(ours.out.find("\"container.googleapis.com\"") != std::string::npos);

  // The quota project, as gcloud sends it: --billing-project, else gcloud's billing/quota_project.
  auto flagged = env.Tputrain({"cluster", "list", "--billing-project", "quota-proj", "--log-http"});
  CHECK(flagged.exit_code == 0);
  CHECK(flagged.err.find("x-goog-user-project: quota-proj") != std::string::npos);
  Run(env, {"config", "set", "billing/quota_project", "quota-from-gcloud"});
  auto configured = env.Tputrain({"cluster", "list", "--log-http"});
  CHECK(configured.err.find("x-goog-user-project: quota-from-gcloud") != std::string::npos);
  auto bad = env.Tputrain({"cluster", "list", "--billing-project", "Bad Quota"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.rfind("ERROR: --billing-project: expected a project id", 0) == 0);
}

// Seed 001's `gcloud artifacts repositories create ... --repository-format=docker`: tputrain's
// request is gcloud's, field by field, but for the run label; what it creates gcloud sees; cleanup
// deletes it.
TEST_CASE("Artifact Registry: tputrain creates the repository gcloud would, gcloud sees it, cleanup deletes it") {
  REQUIRE(access(kGcloud, X_OK) == 0);
  GcloudAgainstEmulator env;
  REQUIRE(env.Start());
  auto created = env.Tputrain({"registry", "create", "tputrain", "--location", "us-east5-b", "--run", "r-ar"});
  INFO("tputrain registry create: " << created.err);
  REQUIRE(created.exit_code == 0);
  auto described = env.Gcloud({"artifacts", "repositories", "describe", "tputrain", "--location", "us-east5",
                               "--format", "value(format,registryUri)"});
  ExpectSuccess({"artifacts", "repositories", "describe"}, described);
  CHECK(described.out == "DOCKER\tus-east5-docker.pkg.dev/p/tputrain\n");
  Run(env, {"artifacts", "repositories", "create", "by-gcloud", "--repository-format=docker", "--location=us-east5"});

  std::vector<nlohmann::json> creates;
  const nlohmann::json log = env.Requests();
  for (const auto& request : log["requests"]) {
    if (request["method"] == "POST" && request["path"] == "/v1/projects/p/locations/us-east5/repositories") {
      creates.push_back(request);
    }
  }
  REQUIRE(creates.size() == 2);
  nlohmann::json ours = creates[0]["body"];
  nlohmann::json theirs = creates[1]["body"];
  CHECK(ours["labels"] == nlohmann::json{{"tputrain-run", "r-ar"}});  // the deliberate difference
  ours.erase("labels");
  ours["name"] = theirs["name"];
  CHECK(ours == theirs);

  auto again = env.Tputrain({"registry", "create", "tputrain", "--location", "us-east5", "--run", "r-ar"});
  CHECK(again.exit_code == 0);  // idempotent: adopted
  auto cleaned = env.Tputrain({"cleanup", "--run", "r-ar", "--yes"});
  INFO("tputrain cleanup: " << cleaned.err);
  CHECK(cleaned.exit_code == 0);
  auto listed = env.Gcloud({"artifacts", "repositories", "list", "--location", "us-east5", "--format", "value(name)"});
  ExpectSuccess({"artifacts", "repositories", "list"}, listed);
  CHECK(listed.out.find("tputrain") == std::string::npos);
  CHECK(listed.out.find("by-gcloud") != std::string::npos);  // not the run's: left alone
  Run(env, {"artifacts", "repositories", "delete", "by-gcloud", "--location=us-east5", "--quiet"});
  auto after = env.Gcloud({"artifacts", "repositories", "list", "--location", "us-east5", "--format", "value(name)"});
  ExpectSuccess({"artifacts", "repositories", "list"}, after);
  CHECK(after.out.empty());
}

// gcloud builds submit reads the build log from https://storage.googleapis.com/BUCKET/OBJECT, a
// URL no endpoint override reaches. The test gives gcloud an HTTPS proxy of its own
// (tests/testing/tls_intercept_proxy.py) that terminates TLS for that one host with a certificate
// from a CA made here, and hands the request to the emulator; every other host is refused.
class LogProxy {
 public:
  LogProxy(const fs::path& dir, const std::string& upstream) {
    fs::create_directories(dir);
    ca_ = dir / "ca.pem";
    const fs::path key = dir / "ca.key", server_key = dir / "server.key", csr = dir / "server.csr",
                   cert = dir / "server.pem", extensions = dir / "san.ext", port_file = dir / "port";
    std::ofstream(extensions) << "subjectAltName=DNS:storage.googleapis.com\n";
    const std::vector<std::vector<std::string>> steps = {
        {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", ca_, "-days", "1", "-subj",
         "/CN=tputrain test CA"},
        {"openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", server_key, "-out", csr, "-subj",
         "/CN=storage.googleapis.com"},
        {"openssl", "x509", "-req", "-in", csr, "-CA", ca_, "-CAkey", key, "-CAcreateserial", "-out", cert, "-days",
         "1", "-extfile", extensions},
    };
    for (const auto& step : steps) {
      auto made = RunProcess({step}, std::chrono::seconds(60));
      if (made.exit_code != 0) throw std::runtime_error("openssl failed: " + made.err);
    }
    proxy_ = std::make_unique<ScopedProcess>(ProcessOptions{
        {"python3", std::string(TPUTRAIN_SOURCE_DIR) + "/tests/testing/tls_intercept_proxy.py", "--cert", cert, "--key",
         server_key, "--host", "storage.googleapis.com", "--upstream", upstream, "--port-file", port_file}});
    if (!tputrain::testing::WaitFor([&] { return fs::exists(port_file); }, std::chrono::seconds(20))) {
      throw std::runtime_error("the log proxy did not start: " + proxy_->ReadOut());
    }
    url_ = "http://127.0.0.1:" + ReadText(port_file);
  }

  void Configure(GcloudAgainstEmulator& env) const {
    for (const char* name : {"HTTPS_PROXY", "https_proxy"}) env.SetGcloudEnv(name, url_);
    for (const char* name : {"NO_PROXY", "no_proxy"}) env.SetGcloudEnv(name, "127.0.0.1,localhost");
    // gcloud's property, and the variables its HTTP library prefers when they are set (as they
    // are on machines that point every tool at one CA bundle).
    for (const char* name : {"CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"}) {
      env.SetGcloudEnv(name, ca_.string());
    }
  }

 private:
  fs::path ca_;
  std::string url_;
  std::unique_ptr<ScopedProcess> proxy_;
};

std::vector<nlohmann::json> BuildCreates(GcloudAgainstEmulator& env) {
  std::vector<nlohmann::json> creates;
  const nlohmann::json log = env.Requests();
  for (const auto& request : log["requests"]) {
    if (request["method"] == "POST" && request["path"] == "/v1/projects/p/locations/global/builds") {
      creates.push_back(request["body"]);
    }
  }
  return creates;
}

// Seed 001's `gcloud builds submit --tag`: gcloud's own upload, build and log streaming work
// against the emulator; tputrain's build request is gcloud's; what tputrain pushes, gcloud lists;
// cleanup deletes tputrain's source tarball and leaves gcloud's, even the cleanup of the run that
// created the bucket.
TEST_CASE("Cloud Build: gcloud builds submit streams the emulated log, tputrain sends gcloud's build, cleanup") {
  REQUIRE(access(kGcloud, X_OK) == 0);
  GcloudAgainstEmulator env;
  REQUIRE(env.Start());
  LogProxy proxy(env.dir() / "tls", env.base_url());
  proxy.Configure(env);
  Run(env, {"artifacts", "repositories", "create", "repo", "--repository-format=docker", "--location=us-east5"});

  const fs::path context = env.dir() / "context";
  fs::create_directories(context);
  std::ofstream(context / "Dockerfile") << "FROM python:3.11-slim\nCOPY app.py /app/\n";
  std::ofstream(context / "app.py") << "print('hello')\n";
  std::ofstream(context / "notes.md") << "left out by .gcloudignore\n";
  std::ofstream(context / ".gcloudignore") << ".gcloudignore\nnotes.md\n";

  // A first run makes the project's source bucket (labelled with its run); gcloud and a second run
  // share it.
  auto first = env.Tputrain({"image", "build", context, "--tag", "us-east5-docker.pkg.dev/p/repo/img:first",
                             "--location", "us-east5", "--run", "r-first"});
  INFO("tputrain image build (first): " << first.err);
  REQUIRE(first.exit_code == 0);
  auto submitted = env.Gcloud({"builds", "submit", "--tag", "us-east5-docker.pkg.dev/p/repo/img:gcloud", context});
  ExpectSuccess({"builds", "submit"}, submitted);
  CHECK(submitted.out.find("this build is emulated") != std::string::npos);  // the log, streamed
  CHECK(submitted.out.find("SUCCESS") != std::string::npos);

  auto built = env.Tputrain({"image", "build", context, "--tag", "us-east5-docker.pkg.dev/p/repo/img:tputrain",
                             "--location", "us-east5", "--run", "r-cb"});
  INFO("tputrain image build: " << built.err);
  REQUIRE(built.exit_code == 0);
  CHECK(built.out.rfind("us-east5-docker.pkg.dev/p/repo/img@sha256:", 0) == 0);
  CHECK(built.err.find("this build is emulated") != std::string::npos);
  // The same context, the same ignore rules: both uploads hold Dockerfile and app.py only.
  CHECK(submitted.out.find("Context: 2 files") != std::string::npos);
  CHECK(built.err.find("Context: 2 files") != std::string::npos);

  auto creates = BuildCreates(env);
  REQUIRE(creates.size() == 3);
  nlohmann::json theirs = creates[1];
  nlohmann::json ours = creates[2];
  // The deliberate differences: the tag asked for, and the uploaded object's name and generation.
  for (auto* body : {&theirs, &ours}) {
    (*body)["images"] = {"TAG"};
    (*body)["steps"][0]["args"][5] = "TAG";
    (*body)["source"]["storageSource"].erase("object");
    (*body)["source"]["storageSource"].erase("generation");
  }
  CHECK(ours == theirs);

  auto images = env.Gcloud({"artifacts", "docker", "images", "list", "us-east5-docker.pkg.dev/p/repo", "--include-tags",
                            "--format", "value(tags)"});
  ExpectSuccess({"artifacts", "docker", "images", "list"}, images);
  CHECK(images.out.find("tputrain") != std::string::npos);
  CHECK(images.out.find("gcloud") != std::string::npos);

  auto cleaned = env.Tputrain({"cleanup", "--run", "r-cb", "--yes"});
  INFO("tputrain cleanup: " << cleaned.err);
  CHECK(cleaned.exit_code == 0);
  auto objects = env.Gcloud({"storage", "ls", "gs://p_cloudbuild/source/"});
  INFO(objects.err);
  CHECK(objects.exit_code == 0);
  CHECK(Lines(objects.out).size() == 2);  // gcloud's and the first run's; r-cb's went with its run

  // The run that created the bucket owns its own tarball, not the bucket gcloud stages in.
  auto first_cleaned = env.Tputrain({"cleanup", "--run", "r-first", "--yes"});
  INFO("tputrain cleanup --run r-first: " << first_cleaned.err);
  CHECK(first_cleaned.exit_code == 0);
  CHECK(first_cleaned.err.find("kept: it holds 1 object this run did not upload") != std::string::npos);
  auto left = env.Gcloud({"storage", "ls", "gs://p_cloudbuild/source/"});
  INFO(left.err);
  CHECK(left.exit_code == 0);
  CHECK(Lines(left.out).size() == 1);  // gcloud's tarball
}

// gcloud packs a context's names as UTF-8 pax records; the emulator reads them as Cloud Build
// does (it once refused them: libarchive in the C locale cannot convert them), and tputrain
// packs the same names the same way.
TEST_CASE("Cloud Build: a context with names that are not ASCII builds from gcloud and from tputrain") {
  REQUIRE(access(kGcloud, X_OK) == 0);
  GcloudAgainstEmulator env;
  REQUIRE(env.Start());
  LogProxy proxy(env.dir() / "tls", env.base_url());
  proxy.Configure(env);
  Run(env, {"artifacts", "repositories", "create", "repo", "--repository-format=docker", "--location=us-east5"});
  const fs::path context = env.dir() / "context";
  fs::create_directories(context / "données");
  std::ofstream(context / "Dockerfile") << "FROM python:3.11-slim\nCOPY résumé.txt /app/\n";
  std::ofstream(context / "résumé.txt") << "cv\n";
  std::ofstream(context / "données" / "日本.csv") << "a,b\n";

  auto submitted = env.Gcloud({"builds", "submit", "--tag", "us-east5-docker.pkg.dev/p/repo/img:gcloud", context});
  ExpectSuccess({"builds", "submit"}, submitted);
  CHECK(submitted.out.find("Context: 3 files") != std::string::npos);
  CHECK(submitted.out.find("SUCCESS") != std::string::npos);

  auto built = env.Tputrain(
      {"image", "build", context, "--tag", "us-east5-docker.pkg.dev/p/repo/img:tputrain", "--location", "us-east5"});
  INFO("tputrain image build: " << built.err);
  CHECK(built.exit_code == 0);
  CHECK(built.err.find("Context: 3 files") != std::string::npos);
}

TEST_CASE("Compute firewall rules: gcloud creates, describes, lists and deletes them (two at once in a batch)") {
  REQUIRE(access(kGcloud, X_OK) == 0);
  GcloudAgainstEmulator env;
  REQUIRE(env.Start());
  const std::vector<std::string> create = {"compute",   "firewall-rules", "create",          "allow-iap-ray",
                                           "--network", "default",        "--direction",     "INGRESS",
                                           "--allow",   "tcp:8265",       "--source-ranges", "35.235.240.0/20"};
  auto created = env.Gcloud(create);
  ExpectSuccess(create, created);
  CHECK(created.err.find("Created [") != std::string::npos);
  auto described = env.Gcloud({"compute", "firewall-rules", "describe", "allow-iap-ray", "--format", "json"});
  ExpectSuccess({"compute", "firewall-rules", "describe"}, described);
  auto rule = nlohmann::json::parse(described.out);
  CHECK(rule["kind"] == "compute#firewall");
  CHECK(rule["sourceRanges"] == nlohmann::json::array({"35.235.240.0/20"}));
  CHECK(rule["allowed"] == nlohmann::json::parse(R"([{"IPProtocol":"tcp","ports":["8265"]}])"));
  CHECK(rule["direction"] == "INGRESS");
  // gcloud waits with globalOperations.wait until the operation is DONE.
  bool waited = false;
  const nlohmann::json log = env.Requests();  // held: a range-for over a temporary's member dangles
  for (const auto& request : log["requests"]) {
    waited = waited || request["path"].get<std::string>().ends_with("/wait");
  }
  CHECK(waited);

  // tputrain finds gcloud's rule: its check is silent.
  auto tpu_vm = env.Tputrain(
      {"tpu-vm", "create", "ray", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--ray", "--async"});
  INFO(tpu_vm.err);
  CHECK(tpu_vm.exit_code == 0);
  CHECK(tpu_vm.err.find("no firewall rule") == std::string::npos);

  ExpectSuccess({"create second"}, env.Gcloud({"compute", "firewall-rules", "create", "second", "--allow", "tcp:22",
                                               "--source-ranges", "35.235.240.0/20"}));
  // update (firewalls.patch): gcloud reads the rule and sends it back changed.
  ExpectSuccess({"update second"},
                env.Gcloud({"compute", "firewall-rules", "update", "second", "--allow", "tcp:22,tcp:8265"}));
  auto updated = env.Gcloud({"compute", "firewall-rules", "describe", "second", "--format", "json"});
  CHECK(nlohmann::json::parse(updated.out)["allowed"] ==
        nlohmann::json::parse(R"([{"IPProtocol":"tcp","ports":["22"]},{"IPProtocol":"tcp","ports":["8265"]}])"));
  auto listed = env.Gcloud({"compute", "firewall-rules", "list", "--format", "value(name)"});
  ExpectSuccess({"compute", "firewall-rules", "list"}, listed);
  CHECK(listed.out == "allow-iap-ray\nsecond\n");
  // Two rules at once: gcloud sends one multipart/mixed POST to /batch/compute/v1.
  auto deleted = env.Gcloud({"compute", "firewall-rules", "delete", "allow-iap-ray", "second"});
  ExpectSuccess({"compute", "firewall-rules", "delete", "allow-iap-ray", "second"}, deleted);
  auto gone = env.Gcloud({"compute", "firewall-rules", "describe", "second"});
  CHECK(gone.exit_code == 1);
  CHECK(gone.err.find("The resource 'projects/p/global/firewalls/second' was not found") != std::string::npos);
  CHECK(env.State()->at("firewalls").empty());

  // Every call through the batch endpoint, as compute/force_batch_request makes gcloud do.
  env.SetGcloudEnv("CLOUDSDK_COMPUTE_FORCE_BATCH_REQUEST", "true");
  ExpectSuccess(create, env.Gcloud(create));
  auto again = env.Gcloud(create);
  CHECK(again.exit_code == 1);
  CHECK(again.err.find("already exists") != std::string::npos);
  auto batched = env.Gcloud({"compute", "firewall-rules", "describe", "allow-iap-ray", "--format", "value(name)"});
  CHECK(batched.out == "allow-iap-ray\n");
}

// Ironwood (TPU7x) as gcloud makes it: a workload policy, a 1.34 cluster, a pool that names the
// policy (which cannot be deleted while it does), and the refusals GKE and Cloud TPU answer with.
TEST_CASE("Compute workload policies and tpu7x pools: gcloud creates, describes, lists and deletes them") {
  REQUIRE(access(kGcloud, X_OK) == 0);
  GcloudAgainstEmulator env;
  REQUIRE(env.Start());
  Run(env, {"compute", "resource-policies", "create", "workload-policy", "wp", "--region=us-central1",
            "--type=HIGH_THROUGHPUT", "--accelerator-topology=2x2x2"});
  auto described = env.Gcloud({"compute", "resource-policies", "describe", "wp", "--region=us-central1",
                               "--format=value(workloadPolicy.acceleratorTopology,status)"});
  ExpectSuccess({"compute", "resource-policies", "describe"}, described);
  CHECK(described.out == "2x2x2\tREADY\n");
  auto listed = env.Gcloud({"compute", "resource-policies", "list", "--format=value(name)"});
  ExpectSuccess({"compute", "resource-policies", "list"}, listed);
  CHECK(listed.out == "wp\n");

  Run(env,
      {"container", "clusters", "create", "iw", "--location=us-central1-c", "--cluster-version=1.34", "--num-nodes=1"});
  const std::vector<std::string> pool = {"container",
                                         "node-pools",
                                         "create",
                                         "iw",
                                         "--cluster=iw",
                                         "--location=us-central1-c",
                                         "--machine-type=tpu7x-standard-4t",
                                         "--placement-policy=wp",
                                         "--num-nodes=2",
                                         "--node-version=1.34.1-gke.3084001"};
  Run(env, pool);
  auto in_use = env.Gcloud({"compute", "resource-policies", "delete", "wp", "--region=us-central1", "--quiet"});
  CHECK(in_use.exit_code == 1);
  CHECK(in_use.err.find("is already being used by") != std::string::npos);
  auto topology = env.Gcloud({"container", "node-pools", "create", "topo", "--cluster=iw", "--location=us-central1-c",
                              "--machine-type=tpu7x-standard-4t", "--tpu-topology=2x2x2", "--num-nodes=2",
                              "--node-version=1.34.1-gke.3084001"});
  CHECK(topology.exit_code == 1);
  CHECK(topology.err.find("code=400") != std::string::npos);
  auto unpinned = env.Gcloud({"container", "node-pools", "create", "unpinned", "--cluster=iw",
                              "--location=us-central1-c", "--machine-type=tpu7x-standard-4t", "--num-nodes=1"});
  CHECK(unpinned.exit_code == 1);
  CHECK(unpinned.err.find("1.34.0-gke.2201000 or later") != std::string::npos);
  auto tpu_vm = env.Gcloud({"compute", "tpus", "tpu-vm", "create", "v", "--zone=us-central1-c",
                            "--accelerator-type=tpu7x-8", "--version=v2-alpha-tpu7x"});
  CHECK(tpu_vm.exit_code == 1);
  CHECK(tpu_vm.err.find("CloudTpu received an invalid AcceleratorType") != std::string::npos);

  Run(env, {"container", "node-pools", "delete", "iw", "--cluster=iw", "--location=us-central1-c", "--quiet"});
  Run(env, {"compute", "resource-policies", "delete", "wp", "--region=us-central1", "--quiet"});
  CHECK(env.State()->at("resourcePolicies").empty());
}

TEST_CASE("tputrain emulator start rejects bad flags with exit 2 and one line naming the flag") {
  for (std::vector<std::string> flags :
       {std::vector<std::string>{"--faults", "nodePools.create=MAYBE"},
        std::vector<std::string>{"--op-latency", "soon"}, std::vector<std::string>{"--port", "70000"}}) {
    std::vector<std::string> argv = {tputrain::testing::TputrainBinary(), "emulator", "start"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto result = RunProcess({argv}, std::chrono::seconds(20));
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(flags[0]) != std::string::npos);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
}

}  // namespace
}  // namespace tputrain::emulator
