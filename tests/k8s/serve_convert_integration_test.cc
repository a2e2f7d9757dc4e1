// `tputrain serve convert` against the real kube-apiserver and control plane: the
// checkpoint-converter Job applied (ledgered), its pod made by the real Job controller and bound by
// the real scheduler to the m1-pool node, its log followed as the API server reads it from a FAKE
// kubelet (converter_kubelet.py, in a network namespace, serving lines the test writes: the node's
// address), and the Job's conditions, written by the Job controller, ending the command. The test
// plays only the container: kwok starts and ends it when told.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "k8s/apiserver_fixture.h"
#include "k8s/control_plane.h"
#include "k8s/k8s_test_util.h"
#include "k8s/kwok_nodes.h"
#include "testing/netns_host.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kKubeletPort = 10250;
constexpr char kCompleted[] =
    "2026-11-24 09:41:07: Completed quantizing model llama3.1-405b with int8 to gs://ckpt/maxtext/llama-3.1-405b/int8";

// The fake kubelet in a network namespace of its own (the API server dials the node's address),
// with a throwaway self-signed certificate.
class ConverterKubelet {
 public:
  ConverterKubelet() : host_("cv", 247) {
    std::string pattern = (fs::temp_directory_path() / "tputrain-convert-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    ProcessOptions cert;
    cert.argv = {"openssl",  "req",
                 "-x509",    "-newkey",
                 "rsa:2048", "-nodes",
                 "-keyout",  dir_ + "/k.key",
                 "-out",     dir_ + "/k.crt",
                 "-days",    "1",
                 "-subj",    "/CN=fake-kubelet",
                 "-addext",  "subjectAltName=IP:" + host_.ip()};
    auto made = RunProcess(cert, std::chrono::seconds(60));
    if (made.exit_code != 0) throw std::runtime_error("openssl failed: " + made.err);
    kubelet_ = host_.Start({{"python3", std::string(TPUTRAIN_SOURCE_DIR) + "/tests/k8s/converter_kubelet.py",
                             host_.ip(), std::to_string(kKubeletPort), dir_ + "/k.crt", dir_ + "/k.key", dir_}});
    if (!WaitFor([&] { return fs::exists(dir_ + "/ready") || !kubelet_->running(); }, std::chrono::seconds(30)) ||
        !fs::exists(dir_ + "/ready")) {
      throw std::runtime_error("the fake kubelet did not start: " + kubelet_->ReadErr());
    }
  }
  ~ConverterKubelet() {
    kubelet_->Stop();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  const std::string& ip() const { return host_.ip(); }
  void Start(const std::string& pod) const { WriteTextFile(dir_ + "/" + pod + ".started", ""); }
  void Log(const std::string& pod, const std::string& line) const {
    std::ofstream(dir_ + "/" + pod + ".log", std::ios::app) << line << "\n";
  }
  void Exit(const std::string& pod) const { WriteTextFile(dir_ + "/" + pod + ".exited", ""); }

 private:
  NetnsHost host_;
  std::string dir_;
  std::unique_ptr<ScopedProcess> kubelet_;
};

ControlPlane& Plane() {
  ControlPlaneOptions options;
  options.pod_end = PodEnd::kRunForever;  // the container ends when the test says
  // The converter's pod starts when the test says (until then its container is waiting).
  options.answering_pods = {{"batch.kubernetes.io/job-name", "checkpoint-converter"}};
  return ControlPlane::Shared(options);
}

// The control plane, the kubelet, and the converter's node pool (one m1 node whose address is
// that kubelet's), for the whole binary.
struct ConvertWorld {
  ControlPlane& plane = Plane();
  ApiServer& server = plane.server();
  ConverterKubelet kubelet;
  std::string state_dir;

  ConvertWorld() {
    NodePoolShape pool;
    pool.cluster = "convert";
    pool.pool = "m1-pool";  // the template's CONVERTER_NODE_POOL
    pool.machine_type = "m1-ultramem-40";
    pool.zone = "us-east5-b";
    pool.cpus = 40;
    pool.memory_gib = 961;
    pool.kubelet_ip = kubelet.ip();
    pool.kubelet_port = kKubeletPort;
    AddNodePool(server.admin(), pool);
    state_dir = server.dir() + "/convert-state";
  }
  static ConvertWorld& Shared() {
    static ConvertWorld world;
    return world;
  }

  // The pod the Job controller made, once the scheduler has bound it.
  std::string Pod(const std::string& ns) {
    return plane.WaitScheduledPod(ns, "batch.kubernetes.io/job-name=checkpoint-converter");
  }
  // Its container starts: kwok reports it Running (at an address nothing dials).
  void Start(const std::string& ns, const std::string& pod) { plane.StartPod(ns, pod); }

  ProcessOptions Convert(const std::string& ns, std::vector<std::string> extra = {}) {
    ProcessOptions options;
    options.argv = {TputrainBinary(),
                    "serve",
                    "convert",
                    "--model",
                    "llama3.1-405b",
                    "--set",
                    "META_URL=https://llama3-1.llamameta.net/*?Policy=test",
                    "--set",
                    "BUCKET=ckpt",
                    "--kubeconfig",
                    server.WriteKubeconfig("convert-" + ns, server.admin_token(), ns),
                    "--run",
                    "convert-" + ns,
                    "--state-dir",
                    state_dir};
    options.argv.insert(options.argv.end(), extra.begin(), extra.end());
    return options;
  }

  bool JobExists(const std::string& ns) {
    auto job = server.admin().GetJson("/apis/batch/v1/namespaces/" + ns + "/jobs/checkpoint-converter", "job");
    return job.has_value();
  }
};

int Count(const std::string& text, const std::string& what) {
  int count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

int WaitExit(ScopedProcess& process) {
  WaitFor([&] { return !process.running(); }, std::chrono::seconds(120));
  return process.Stop();
}

TEST_CASE(
    "serve convert follows the converter's log to its Complete condition; Ctrl-C detaches, the same "
    "command re-attaches",
    "[integration]") {
  auto& world = ConvertWorld::Shared();
  const std::string ns = world.server.NewNamespace("convert");
  auto& kubelet = world.kubelet;

  auto first = std::make_unique<ScopedProcess>(world.Convert(ns));
  REQUIRE(WaitFor([&] { return world.JobExists(ns); }, std::chrono::seconds(60)));
  auto job = world.server.admin().GetJson("/apis/batch/v1/namespaces/" + ns + "/jobs/checkpoint-converter", "job");
  REQUIRE(job);
  const auto spec = (*job)["spec"]["template"]["spec"];
  CHECK(spec["nodeSelector"]["cloud.google.com/gke-nodepool"] == "m1-pool");
  const auto args = spec["containers"][0]["args"];
  CHECK(std::find(args.begin(), args.end(), "--output_directory=gs://ckpt/maxtext/llama-3.1-405b") != args.end());

  // The pod exists before its container starts: the API server says it is waiting, and the command waits.
  const std::string pod = world.Pod(ns);
  kubelet.Log(pod, "2026-11-24 00:00:05: Downloading Llama3.1-405B-Instruct:bf16-mp16");
  REQUIRE(WaitFor([&] { return first->ReadErr().find("is waiting to start: ContainerCreating") != std::string::npos; },
                  std::chrono::seconds(30)));
  kubelet.Start(pod);
  world.Start(ns, pod);
  REQUIRE(WaitFor([&] { return first->ReadErr().find("Downloading Llama3.1") != std::string::npos; },
                  std::chrono::seconds(60)));

  // Ctrl-C (SIGTERM alike): the follow stops, the Job stays.
  CHECK(first->Stop() == 130);
  const std::string detached = first->ReadErr();
  INFO(detached);
  CHECK(detached.find("detached; job/checkpoint-converter keeps running on the cluster") != std::string::npos);
  CHECK(world.JobExists(ns));

  // The same command again: the Job applies unchanged, the lines so far are shown, new ones follow.
  kubelet.Log(pod,
              "2026-11-24 03:12:44: Completed unscanning checkpoint to gs://ckpt/maxtext/llama-3.1-405b/bf16/"
              "unscanned/checkpoints/0/items");
  ScopedProcess again(world.Convert(ns));
  REQUIRE(WaitFor([&] { return again.ReadErr().find("Completed unscanning") != std::string::npos; },
                  std::chrono::seconds(60)));
  kubelet.Log(pod, kCompleted);
  REQUIRE(WaitFor([&] { return again.ReadErr().find("Completed quantizing model") != std::string::npos; },
                  std::chrono::seconds(60)));
  CHECK(again.running());  // the log says done; the Job's condition decides
  kubelet.Exit(pod);
  world.plane.EndPod(ns, pod, 0);  // the Job controller then marks the Job Complete
  CHECK(WaitExit(again) == 0);
  const std::string out = again.ReadOut();
  const std::string err = again.ReadErr();
  INFO(out << err);
  CHECK(out.find("Job " + ns + "/checkpoint-converter unchanged") != std::string::npos);
  CHECK(out.find("the checkpoint is gs://ckpt/maxtext/llama-3.1-405b/int8") != std::string::npos);
  CHECK(Count(err, "Downloading Llama3.1") == 1);  // re-attached: shown again, once
  CHECK(Count(err, "Completed unscanning") == 1);
  CHECK(Count(err, "Completed quantizing model") == 1);

  // Once more on the finished Job: its last lines and Complete at once; --format json for scripts.
  auto done = RunProcess(world.Convert(ns, {"--format", "json"}), std::chrono::seconds(60));
  INFO(done.err);
  CHECK(done.exit_code == 0);
  const auto result = json::parse(done.out);
  CHECK(result["complete"] == true);
  CHECK(result["reattached"] == true);
  CHECK(result["checkpoint"] == "gs://ckpt/maxtext/llama-3.1-405b/int8");
  CHECK(Count(done.err, "Completed quantizing model") == 1);

  // --no-follow returns once applied.
  auto applied = RunProcess(world.Convert(ns, {"--no-follow"}), std::chrono::seconds(60));
  CHECK(applied.exit_code == 0);
  CHECK(applied.out.find("unchanged") != std::string::npos);
  CHECK(applied.err.find("Completed quantizing model") == std::string::npos);

  // The ledger holds the Job, so cleanup deletes it.
  const std::string ledger = ReadTextFile(world.state_dir + "/convert-" + ns + ".json");
  CHECK(ledger.find("checkpoint-converter") != std::string::npos);
  // Cleanup deletes in the foreground; the garbage collector removes the pod, then the Job.
  auto cleanup =
      RunProcess({{TputrainBinary(), "cleanup", "--run", "convert-" + ns, "--state-dir", world.state_dir, "--yes"}},
                 std::chrono::seconds(120));
  INFO(cleanup.out << cleanup.err);
  CHECK(cleanup.exit_code == 0);
  CHECK_FALSE(world.JobExists(ns));
  auto pods = world.server.admin().GetJson("/api/v1/namespaces/" + ns + "/pods", "");
  REQUIRE(pods);
  CHECK((*pods)["items"].empty());
}

TEST_CASE("serve convert: a failed Job is exit 1 with its last log lines; --no-follow returns after apply",
          "[integration]") {
  auto& world = ConvertWorld::Shared();
  const std::string ns = world.server.NewNamespace("convert-fail");
  auto& kubelet = world.kubelet;

  // --dry-run: the server validates the apply; nothing is stored.
  auto dry = RunProcess(world.Convert(ns, {"--dry-run"}), std::chrono::seconds(60));
  INFO(dry.err);
  CHECK(dry.exit_code == 0);
  CHECK(dry.out.find("created (server dry run)") != std::string::npos);
  CHECK_FALSE(world.JobExists(ns));

  auto applied = RunProcess(world.Convert(ns, {"--no-follow"}), std::chrono::seconds(60));
  INFO(applied.err);
  REQUIRE(applied.exit_code == 0);
  CHECK(applied.out.find("Job " + ns + "/checkpoint-converter created") != std::string::npos);
  CHECK(applied.out.find("The checkpoint will be gs://ckpt/maxtext/llama-3.1-405b/int8") != std::string::npos);
  CHECK(world.JobExists(ns));

  const std::string pod = world.Pod(ns);
  kubelet.Start(pod);
  world.Start(ns, pod);
  kubelet.Log(pod, "2026-11-24 00:00:05: Downloading Llama3.1-405B-Instruct:bf16-mp16");
  kubelet.Log(pod, "ERROR 403: Forbidden (the META_URL has expired)");
  ScopedProcess following(world.Convert(ns));
  const bool seen =
      WaitFor([&] { return following.ReadErr().find("ERROR 403") != std::string::npos; }, std::chrono::seconds(60));
  INFO("following: " << following.ReadErr());
  REQUIRE(seen);
  kubelet.Exit(pod);
  world.plane.EndPod(ns, pod, 1);  // backoffLimit 0: the Job controller fails the Job
  CHECK(WaitExit(following) == 1);
  const std::string err = following.ReadErr();
  INFO(err);
  CHECK(following.ReadOut().empty());
  CHECK(err.find("ERROR: job/checkpoint-converter failed (BackoffLimitExceeded: Job has reached the specified "
                 "backoff limit); its last log lines:\n") != std::string::npos);
  CHECK(Count(err, "ERROR 403: Forbidden") == 2);  // as it came, and in the failure's last lines
}

}  // namespace
}  // namespace tputrain::testing
