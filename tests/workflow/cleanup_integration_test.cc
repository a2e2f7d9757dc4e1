// `tputrain cleanup` against `tputrain emulator start`: a whole run, a half-created one, one
// already deleted behind tputrain's back, a bucket holding objects, adopted resources kept.
#include <catch2/catch.hpp>

#include <signal.h>

#include <functional>

#include "emulator_env.h"
#include "tputrain/core/clock.h"
#include "tputrain/state/ledger.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

ProcessResult Ok(EmulatorEnv& env, const std::vector<std::string>& args) {
  auto result = env.Tputrain(args);
  std::string command = "tputrain";
  for (const auto& arg : args) command += " " + arg;
  INFO(command << "\nstdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE(result.exit_code == 0);
  return result;
}

http::Response Send(EmulatorEnv& env, const std::string& method, const std::string& url, const std::string& body,
                    const std::string& content_type = "application/json") {
  (void)env;
  http::CurlTransport transport;
  http::Request request;
  request.method = method;
  request.url = url;
  request.headers = {{"Authorization", "Bearer provision-test-token"}, {"Content-Type", content_type}};
  request.body = body;
  auto response = transport.Send(request);
  REQUIRE(response);
  return *response;
}

std::string StorageBase(EmulatorEnv& env) { return *env.Environment()["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"]; }

void PutObject(EmulatorEnv& env, const std::string& bucket, const std::string& name) {
  std::string root = StorageBase(env);
  root = root.substr(0, root.find("/storage/v1/"));
  auto response = Send(env, "POST", root + "/upload/storage/v1/b/" + bucket + "/o?uploadType=media&name=" + name,
                       "checkpoint bytes", "application/octet-stream");
  INFO(response.body);
  REQUIRE(response.status == 200);
}

bool HasKeyEndingWith(const json& section, const std::string& suffix) {
  if (!section.is_object()) return false;
  for (const auto& [key, value] : section.items()) {
    if (key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) return true;
  }
  return false;
}

bool MemberBound(const json& state, const std::string& member) {
  const json policies = state.value("policies", json::object());
  for (const auto& [resource, policy] : policies.items()) {
    const json bindings = policy.value("bindings", json::array());
    for (const auto& binding : bindings) {
      const json members = binding.value("members", json::array());
      for (const auto& bound : members) {
        if (bound == member) return true;
      }
    }
  }
  return false;
}

state::Ledger LoadLedger(EmulatorEnv& env, const std::string& run) {
  core::SystemClock clock;
  state::LedgerStore store(env.state_dir(), clock);
  auto ledger = store.Load(run);
  REQUIRE(ledger);
  return *ledger;
}

std::vector<std::string> Kinds(const json& plan_run, const char* list) {
  std::vector<std::string> kinds;
  for (const auto& item : plan_run[list]) kinds.push_back(item["kind"]);
  return kinds;
}

TEST_CASE("cleanup deletes a whole run in reverse dependency order, a bucket with its objects, and is safe to repeat",
          "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  Ok(env, {"cluster", "create", "c1", "--location", "us-east5-b", "--tpu-type", "v6e-16", "--num-slices", "2", "--run",
           "r1"});
  Ok(env, {"tpu-vm", "create", "vm1", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--run", "r1"});
  Ok(env, {"bucket", "create", "gs://r1-bucket", "--run", "r1"});
  Ok(env, {"iam", "service-account", "create", "trainer", "--role", "roles/storage.objectUser", "--run", "r1"});
  PutObject(env, "r1-bucket", "ckpt%2Fstep-1");
  PutObject(env, "r1-bucket", "ckpt%2Fstep-2");
  const std::string account = "trainer@p.iam.gserviceaccount.com";
  REQUIRE(MemberBound(env.State(), "serviceAccount:" + account));

  SECTION("--dry-run lists the order and --detailed-exitcode says there is work") {
    auto plan = env.Tputrain({"cleanup", "--run", "r1", "--dry-run", "--detailed-exitcode", "--format", "json"});
    INFO(plan.out << plan.err);
    REQUIRE(plan.exit_code == 3);
    json run = json::parse(plan.out)["runs"][0];
    CHECK(Kinds(run, "delete") == std::vector<std::string>{"nodepool", "nodepool", "tpu-vm", "cluster", "bucket",
                                                           "iam-member", "service-account"});
    CHECK(run["delete"][0]["action"] == "goes with its cluster");
    // Nothing was sent.
    CHECK(HasKeyEndingWith(env.State()["buckets"], "r1-bucket"));
    auto table = env.Tputrain({"cleanup", "--run", "r1", "--dry-run"});
    CHECK(table.exit_code == 0);
    CHECK(table.out.find("goes with its cluster") != std::string::npos);
  }

  SECTION("without a terminal and without --yes nothing is deleted") {
    auto refused = env.Tputrain({"cleanup", "--run", "r1"});
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("--yes") != std::string::npos);
    CHECK(HasKeyEndingWith(env.State()["clusters"], "/clusters/c1"));
  }

  SECTION("--yes deletes everything; a second cleanup finds nothing to do") {
    auto done = Ok(env, {"cleanup", "--run", "r1", "--yes", "--format", "json"});
    json state = env.State();
    CHECK_FALSE(HasKeyEndingWith(state["clusters"], "/clusters/c1"));
    CHECK_FALSE(HasKeyEndingWith(state["tpuNodes"], "/nodes/vm1"));
    CHECK_FALSE(HasKeyEndingWith(state["buckets"], "r1-bucket"));
    CHECK_FALSE(state.value("serviceAccounts", json::object()).contains(account));
    CHECK_FALSE(MemberBound(state, "serviceAccount:" + account));
    for (const auto& entry : LoadLedger(env, "r1").entries) {
      INFO(entry.KindName() << " " << entry.name);
      CHECK(entry.state == state::EntryState::kDeleted);
    }
    json outcomes = json::parse(done.out)["runs"][0]["resources"];
    std::vector<std::string> order;
    for (const auto& outcome : outcomes) order.push_back(outcome["kind"]);
    CHECK(order == std::vector<std::string>{"tpu-vm", "cluster", "nodepool", "nodepool", "bucket", "iam-member",
                                            "service-account"});
    CHECK(outcomes[2]["action"] == "went with its cluster");

    auto again = Ok(env, {"cleanup", "--run", "r1", "--yes"});
    CHECK(again.out.find("nothing to delete") != std::string::npos);
    auto check = env.Tputrain({"cleanup", "--run", "r1", "--dry-run", "--detailed-exitcode"});
    CHECK(check.exit_code == 0);
  }
}

TEST_CASE("cleanup of a set already deleted behind tputrain's back says so and exits 0", "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  Ok(env, {"cluster", "create", "gone-c", "--location", "us-east5-b", "--run", "r2"});
  Ok(env, {"bucket", "create", "gs://gone-b", "--run", "r2"});
  // gcloud, not tputrain, deletes them: the ledger still says created.
  auto cluster = env.Gcloud({"container", "clusters", "delete", "gone-c", "--location", "us-east5-b", "--quiet"});
  INFO(cluster.out << cluster.err);
  REQUIRE(cluster.exit_code == 0);
  REQUIRE(Send(env, "DELETE", StorageBase(env) + "b/gone-b", "").status == 204);

  auto done = Ok(env, {"cleanup", "--run", "r2", "--yes", "--format", "json"});
  json outcomes = json::parse(done.out)["runs"][0]["resources"];
  REQUIRE(outcomes.size() == 2);
  for (const auto& outcome : outcomes) CHECK(outcome["action"] == "already gone");
  for (const auto& entry : LoadLedger(env, "r2").entries) CHECK(entry.state == state::EntryState::kDeleted);
}

TEST_CASE("cleanup of a half-created set: a create still running, one never sent, one left by --async",
          "[integration]") {
  EmulatorEnv env({"--faults", "clusters.create=stuck@nth:1", "--stuck-for", "4s"}, "100ms");
  REQUIRE(env.ready());
  // The cluster's create outlives the wait; the ledger keeps it `creating` with its operation.
  auto stuck = env.Tputrain({"cluster", "create", "half-c", "--location", "us-east5-b", "--tpu-type", "v6e-16",
                             "--timeout", "1s", "--run", "r3"});
  INFO(stuck.out << stuck.err);
  REQUIRE(stuck.exit_code == 1);
  Ok(env,
     {"tpu-vm", "create", "half-vm", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--async", "--run", "r3"});
  // A process killed between writing the ledger and sending the create.
  core::SystemClock clock;
  state::LedgerStore store(env.state_dir(), clock);
  REQUIRE(store.RecordCreating("r3", {.kind = tputrain::state::ResourceKind::kBucket,
                                      .name = "never-sent-b",
                                      .details = {{"project", "p"}, {"bucket", "never-sent-b"}}}));
  state::Ledger before = LoadLedger(env, "r3");
  int creating = 0;
  for (const auto& entry : before.entries) creating += entry.state == state::EntryState::kCreating ? 1 : 0;
  CHECK(creating == 3);

  auto plan = env.Tputrain({"cleanup", "--run", "r3", "--dry-run", "--format", "json"});
  INFO(plan.out << plan.err);
  REQUIRE(plan.exit_code == 0);
  bool waits = false;
  const json planned = json::parse(plan.out);
  for (const auto& item : planned["runs"][0]["delete"]) {
    waits = waits || item["action"].get<std::string>().rfind("wait for ", 0) == 0;
  }
  CHECK(waits);

  auto done = Ok(env, {"cleanup", "--run", "r3", "--yes", "--format", "json"});
  json state = env.State();
  CHECK_FALSE(HasKeyEndingWith(state["clusters"], "/clusters/half-c"));
  CHECK_FALSE(HasKeyEndingWith(state["tpuNodes"], "/nodes/half-vm"));
  for (const auto& entry : LoadLedger(env, "r3").entries) {
    INFO(entry.KindName() << " " << entry.name);
    CHECK(entry.state == state::EntryState::kDeleted);
  }
}

TEST_CASE("cleanup leaves adopted resources alone unless --force; --all covers every run", "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  auto made = Send(env, "POST", StorageBase(env) + "b?project=p", json{{"name", "shared-b"}}.dump());
  REQUIRE(made.status == 200);
  Ok(env, {"bucket", "create", "gs://shared-b", "--run", "r4"});  // adopts the existing bucket
  Ok(env, {"bucket", "create", "gs://own-b", "--run", "r5"});

  auto done = Ok(env, {"cleanup", "--all", "--yes", "--format", "json"});
  json state = env.State();
  CHECK(HasKeyEndingWith(state["buckets"], "shared-b"));
  CHECK_FALSE(HasKeyEndingWith(state["buckets"], "own-b"));
  json runs = json::parse(done.out)["runs"];
  REQUIRE(runs.size() == 2);
  CHECK(runs[0]["kept"].size() == 1);

  auto usage = env.Tputrain({"cleanup", "--all", "--run", "r4", "--yes"});
  CHECK(usage.exit_code == 2);
  Ok(env, {"cleanup", "--run", "r4", "--force", "--yes"});
  CHECK_FALSE(HasKeyEndingWith(env.State()["buckets"], "shared-b"));
}

TEST_CASE("Kubernetes objects on a cluster the run deletes go with it when the API server cannot be reached",
          "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  Ok(env, {"cluster", "create", "c6", "--location", "us-east5-b", "--run", "r6"});
  core::SystemClock clock;
  state::LedgerStore store(env.state_dir(), clock);
  // Applied through a kubeconfig that a finished CI job took with it.
  nlohmann::json access = {{"kubeconfig", env.dir().string() + "/gone/kubeconfig"}, {"context", "gke_p_us-east5-b_c6"}};
  state::LedgerEntry object{.kind = tputrain::state::ResourceKind::kK8sObject,
                            .name = "kubeconfig:gke_p_us-east5-b_c6|ray.io/v1|RayCluster|default|rc",
                            .details = {{"api_version", "ray.io/v1"},
                                        {"kind", "RayCluster"},
                                        {"namespace", "default"},
                                        {"name", "rc"},
                                        {"access", access}}};
  REQUIRE(store.RecordCreating("r6", object));
  REQUIRE(store.RecordState("r6", object.kind, object.name, state::EntryState::kCreated));

  auto done = Ok(env, {"cleanup", "--run", "r6", "--yes", "--format", "json"});
  CHECK(done.err.find("they go with cluster projects/p/locations/us-east5-b/clusters/c6") != std::string::npos);
  bool went = false;
  const json outcomes = json::parse(done.out)["runs"][0]["resources"];
  for (const auto& outcome : outcomes)
    went = went || (outcome["kind"] == "k8s-object" && outcome["action"] == "went with its cluster");
  CHECK(went);
  CHECK(LoadLedger(env, "r6").Live().empty());

  // The same object on a cluster the run does not delete: cleanup fails, says why, keeps it.
  object.name = "kubeconfig:other|ray.io/v1|RayCluster|default|rc";
  object.details["access"] = {{"kubeconfig", env.dir().string() + "/gone/kubeconfig"}, {"context", "other"}};
  REQUIRE(store.RecordCreating("r7", object));
  auto failed = env.Tputrain({"cleanup", "--run", "r7", "--yes"});
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("gone/kubeconfig") != std::string::npos);
  CHECK(failed.err.find("tputrain cleanup --run r7") != std::string::npos);
  CHECK(LoadLedger(env, "r7").Live().size() == 1);
}

// Starts `tputrain ARGS`, waits until `ready` holds, sends Ctrl-C (SIGINT) and returns what it printed.
// `ready` sees what the command has printed on stderr so far.
ProcessResult Interrupt(EmulatorEnv& env, std::vector<std::string> args,
                        const std::function<bool(const std::string&)>& ready) {
  ProcessOptions options;
  options.argv = {tputrain::testing::TputrainBinary()};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.argv.insert(options.argv.end(), {"--state-dir", env.state_dir()});
  options.env = env.Environment();
  tputrain::testing::ScopedProcess process(options);
  bool became_ready = tputrain::testing::WaitFor([&] { return ready(process.ReadErr()); }, std::chrono::seconds(30));
  INFO(process.ReadErr());
  REQUIRE(became_ready);
  ::kill(process.pid(), SIGINT);
  // The wait stops at once: the backoff sleep is interruptible.
  CHECK(tputrain::testing::WaitFor([&] { return !process.running(); }, std::chrono::seconds(10)));
  ProcessResult result;
  result.exit_code = process.Stop();
  result.out = process.ReadOut();
  result.err = process.ReadErr();
  return result;
}

TEST_CASE("Ctrl-C during a create or a cleanup: the ledger stays true, the way on is printed, exit 130",
          "[integration]") {
  EmulatorEnv env({}, "60s");  // operations that outlast the test's patience
  REQUIRE(env.ready());
  core::SystemClock clock;
  state::LedgerStore store(env.state_dir(), clock);
  auto has_operation = [&](state::EntryState wanted) {
    auto ledger = store.Load("r8");
    if (!ledger) return false;
    for (const auto& entry : ledger->entries) {
      if (entry.KindName() == "cluster" && entry.state == wanted && !entry.operation.empty()) return true;
    }
    return false;
  };

  auto created = Interrupt(env, {"cluster", "create", "c8", "--location", "us-east5-b", "--run", "r8"},
                           [&](const std::string&) { return has_operation(state::EntryState::kCreating); });
  INFO(created.err);
  CHECK(created.exit_code == 130);
  CHECK(created.err.find("tputrain cleanup --run r8 --yes") != std::string::npos);
  CHECK(created.err.find("run the same command again to resume") != std::string::npos);
  CHECK(has_operation(state::EntryState::kCreating));

  // cleanup waits for that create before deleting; interrupted too, it says how to go on.
  auto cleaning = Interrupt(env, {"cleanup", "--run", "r8", "--yes"}, [](const std::string& err) {
    return err.find("waiting for operation-") != std::string::npos;
  });
  INFO(cleaning.err);
  CHECK(cleaning.exit_code == 130);
  CHECK(cleaning.err.find("tputrain cleanup --run r8 --yes' again") != std::string::npos);
  auto ledger = store.Load("r8");
  REQUIRE(ledger);
  CHECK(ledger->Live().size() == 1);
}

TEST_CASE("cleanup with no run recorded has nothing to do; a --run that names none is refused", "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  auto none = Ok(env, {"cleanup", "--yes"});
  CHECK(none.out.find("No run to clean up") != std::string::npos);
  // A CI leak check with a wrong id must fail, not pass as "nothing to delete".
  auto named = env.Tputrain({"cleanup", "--run", "never-ran", "--yes"});
  CHECK(named.exit_code == 2);
  CHECK(named.err.find("--run: no run 'never-ran' in ") != std::string::npos);
  auto plan = env.Tputrain({"cleanup", "--run", "never-ran", "--dry-run", "--detailed-exitcode"});
  CHECK(plan.exit_code == 2);
  CHECK(plan.out.empty());
}

}  // namespace
}  // namespace tputrain::workflow::testing
