// `tputrain cleanup --scan [--delete-leaked]` against `tputrain emulator start`: what carries the
// tputrain-run label and is in no ledger is listed and deleted; nothing else is touched.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <thread>

#include "emulator_env.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

void Ok(EmulatorEnv& env, const std::vector<std::string>& args) {
  auto result = env.Tputrain(args);
  std::string command = "tputrain";
  for (const auto& arg : args) command += " " + arg;
  INFO(command << "\nstdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE(result.exit_code == 0);
}

// A resource made behind tputrain's back (no label), straight through the emulator's REST API.
void CreateForeign(EmulatorEnv& env, const std::string& url, const json& body) {
  http::CurlTransport transport;
  http::Request request;
  request.method = "POST";
  request.url = url;
  request.headers = {{"Authorization", "Bearer provision-test-token"}, {"Content-Type", "application/json"}};
  request.body = body.dump();
  auto response = transport.Send(request);
  REQUIRE(response);
  INFO(response->body);
  REQUIRE(response->status == 200);
  (void)env;
}

std::set<std::string> Listed(const json& scan) {
  std::set<std::string> out;
  for (const auto& item : scan["leaked"])
    out.insert(item["kind"].get<std::string>() + " " + item["name"].get<std::string>());
  return out;
}

bool HasKeyEndingWith(const json& section, const std::string& suffix) {
  for (const auto& [key, value] : section.items()) {
    if (key.size() >= suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0) return true;
  }
  return false;
}

TEST_CASE("cleanup --scan lists labelled resources no ledger knows; --delete-leaked deletes exactly those",
          "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  // A run whose ledger is lost (the CI runner died with it).
  Ok(env, {"cluster", "create", "leak-c", "--location", "us-east5-b", "--tpu-type", "v6e-16", "--run", "lost"});
  Ok(env, {"bucket", "create", "gs://leak-b", "--run", "lost"});
  Ok(env, {"tpu-vm", "create", "leak-vm", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--run", "lost"});
  // A run whose ledger is still here.
  Ok(env, {"cluster", "create", "kept-c", "--location", "us-east5-b", "--tpu-type", "v6e-16", "--run", "kept"});
  Ok(env, {"bucket", "create", "gs://kept-b", "--run", "kept"});
  // Resources tputrain did not make.
  auto environment = env.Environment();
  std::string container = *environment["CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER"];
  std::string storage = *environment["CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE"];
  CreateForeign(env, storage + "b?project=p", {{"name", "foreign-b"}, {"labels", {{"team", "x"}}}});
  CreateForeign(env, container + "v1/projects/p/locations/us-east5-b/clusters", {{"cluster", {{"name", "foreign-c"}}}});
  REQUIRE(std::filesystem::remove(std::filesystem::path(env.state_dir()) / "lost.json"));

  auto scan = env.Tputrain({"cleanup", "--scan", "--format", "json"});
  INFO(scan.out << scan.err);
  REQUIRE(scan.exit_code == 0);
  CHECK(Listed(json::parse(scan.out)) ==
        std::set<std::string>{"cluster leak-c", "nodepool v6e-16", "bucket leak-b", "tpu-vm leak-vm"});
  const json scanned = json::parse(scan.out);
  for (const auto& item : scanned["leaked"]) CHECK(item["run"] == "lost");

  auto only_kept = env.Tputrain({"cleanup", "--scan", "--run", "kept", "--format", "json"});
  REQUIRE(only_kept.exit_code == 0);
  CHECK(json::parse(only_kept.out)["leaked"].empty());

  // No terminal and no --yes: refused, nothing deleted.
  auto unattended = env.Tputrain({"cleanup", "--scan", "--delete-leaked"});
  CHECK(unattended.exit_code == 2);
  CHECK(unattended.err.find("--yes") != std::string::npos);
  CHECK(HasKeyEndingWith(env.State()["buckets"], "leak-b"));

  auto deleted = env.Tputrain({"cleanup", "--scan", "--delete-leaked", "--yes", "--format", "json"});
  INFO(deleted.out << deleted.err);
  REQUIRE(deleted.exit_code == 0);
  json state = env.State();
  CHECK_FALSE(HasKeyEndingWith(state["clusters"], "/clusters/leak-c"));
  CHECK_FALSE(HasKeyEndingWith(state["buckets"], "leak-b"));
  CHECK_FALSE(HasKeyEndingWith(state["tpuNodes"], "/nodes/leak-vm"));
  CHECK(HasKeyEndingWith(state["clusters"], "/clusters/kept-c"));
  CHECK(HasKeyEndingWith(state["clusters"], "/clusters/foreign-c"));
  CHECK(HasKeyEndingWith(state["buckets"], "kept-b"));
  CHECK(HasKeyEndingWith(state["buckets"], "foreign-b"));

  auto again = env.Tputrain({"cleanup", "--scan", "--format", "json"});
  REQUIRE(again.exit_code == 0);
  CHECK(json::parse(again.out)["leaked"].empty());
}

TEST_CASE("a scan leaves a run with an unreadable ledger alone, cleans the others, and fails naming it",
          "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  Ok(env, {"bucket", "create", "gs://run-b", "--run", "r1"});
  Ok(env, {"bucket", "create", "gs://leaked-b", "--run", "r2"});
  std::ofstream(std::filesystem::path(env.state_dir()) / "r1.json", std::ios::trunc) << "{\"run_id\": ";
  std::filesystem::remove(std::filesystem::path(env.state_dir()) / "r2.json");  // r2's runner died with it
  auto scan = env.Tputrain({"cleanup", "--scan", "--delete-leaked", "--yes"});
  CHECK(scan.exit_code == 1);
  CHECK(scan.err.find("run r1: ") != std::string::npos);
  CHECK(scan.err.find("r1.json") != std::string::npos);
  CHECK(HasKeyEndingWith(env.State()["buckets"], "run-b"));           // in a ledger it cannot read
  CHECK_FALSE(HasKeyEndingWith(env.State()["buckets"], "leaked-b"));  // leaked: deleted
}

TEST_CASE("a scan with a location finds leaked Artifact Registry repositories; without one it says it skipped them",
          "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  Ok(env, {"registry", "create", "leak-r", "--location", "us-east5", "--run", "lost"});
  Ok(env, {"registry", "create", "kept-r", "--location", "us-east5", "--run", "kept"});
  REQUIRE(std::filesystem::remove(std::filesystem::path(env.state_dir()) / "lost.json"));

  auto everywhere = env.Tputrain({"cleanup", "--scan", "--format", "json"});
  REQUIRE(everywhere.exit_code == 0);
  CHECK(json::parse(everywhere.out)["leaked"].empty());
  CHECK(everywhere.err.find("add --location REGION") != std::string::npos);

  auto scan = env.Tputrain({"cleanup", "--scan", "--location", "us-east5-b", "--format", "json"});
  INFO(scan.out << scan.err);
  REQUIRE(scan.exit_code == 0);
  CHECK(Listed(json::parse(scan.out)) == std::set<std::string>{"repository leak-r"});
  Ok(env, {"cleanup", "--scan", "--location", "us-east5", "--delete-leaked", "--yes"});
  json state = env.State();
  CHECK_FALSE(HasKeyEndingWith(state["repositories"], "/repositories/leak-r"));
  CHECK(HasKeyEndingWith(state["repositories"], "/repositories/kept-r"));
}

// The words after "Delete them with: tputrain " on stdout, split at spaces (the test's values
// hold none).
std::vector<std::string> HintArgs(const std::string& out) {
  const std::string marker = "Delete them with: tputrain ";
  const auto at = out.find(marker);
  if (at == std::string::npos) return {};
  std::istringstream words(out.substr(at + marker.size(), out.find('\n', at) - at - marker.size()));
  std::vector<std::string> args;
  for (std::string word; words >> word;) args.push_back(word);
  return args;
}

std::vector<std::string> NodesLeft(EmulatorEnv& env) {
  std::vector<std::string> left;
  const json nodes = env.State().value("tpuNodes", json::object());
  for (const auto& [name, node] : nodes.items()) {
    left.push_back(name.substr(name.rfind('/') + 1));
  }
  std::sort(left.begin(), left.end());
  return left;
}

TEST_CASE(
    "the hint after cleanup --scan --expired repeats every flag that chose the list, so that as printed it "
    "deletes that list and no more",
    "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  const std::vector<std::string> zone = {"--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--run", "gone"};
  auto create = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {"tpu-vm", "create", name};
    args.insert(args.end(), zone.begin(), zone.end());
    args.insert(args.end(), extra.begin(), extra.end());
    Ok(env, args);
  };
  create("expiring", {"--ttl", "1s"});
  create("tomorrow", {"--ttl", "24h"});
  create("no-ttl", {});
  REQUIRE(std::filesystem::remove(std::filesystem::path(env.state_dir()) / "gone.json"));  // leaked, all three
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));

  auto scan = env.Tputrain({"cleanup", "--scan", "--expired", "--location", "us-east5-a"});
  INFO(scan.out << scan.err);
  REQUIRE(scan.exit_code == 0);
  const auto hint = HintArgs(scan.out);
  REQUIRE_FALSE(hint.empty());
  for (const auto& flag : {"--expired", "--delete-leaked", "--yes", "--location"}) {
    CHECK(std::find(hint.begin(), hint.end(), flag) != hint.end());
  }
  auto ran = env.Tputrain(hint, false);
  INFO(ran.out << ran.err);
  REQUIRE(ran.exit_code == 0);
  CHECK(NodesLeft(env) == std::vector<std::string>{"no-ttl", "tomorrow"});
}

TEST_CASE("the expired sweep leaves a cluster that holds another run's live node pool, and says so", "[integration]") {
  EmulatorEnv env({}, "100ms");
  REQUIRE(env.ready());
  Ok(env, {"cluster", "create", "shared-c", "--location", "us-east5-b", "--tpu-type", "v6e-16", "--ttl", "1s", "--run",
           "a"});
  // Run b's pool in run a's cluster: live, no --ttl, its ledger here.
  Ok(env, {"nodepool", "create", "b-pool", "--cluster", "shared-c", "--location", "us-east5-b", "--tpu-type", "v6e-16",
           "--run", "b"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));

  auto scan = env.Tputrain({"cleanup", "--scan", "--expired", "--format", "json"});
  INFO(scan.out << scan.err);
  REQUIRE(scan.exit_code == 0);
  const json listed = json::parse(scan.out)["leaked"];
  CHECK(Listed(json::parse(scan.out)) == std::set<std::string>{"cluster shared-c", "nodepool v6e-16"});
  for (const auto& item : listed) {
    if (item["kind"] != "cluster") continue;
    CHECK(item["kept"] == "it holds node pool b-pool of run b");
    CHECK(item["goes_with"] == json::array({"v6e-16"}));
  }
  auto table = env.Tputrain({"cleanup", "--scan", "--expired"});
  CHECK(table.out.find("cluster shared-c stays: it holds node pool b-pool of run b") != std::string::npos);

  auto deleted = env.Tputrain({"cleanup", "--scan", "--expired", "--delete-leaked", "--yes", "--format", "json"});
  INFO(deleted.out << deleted.err);
  REQUIRE(deleted.exit_code == 0);
  const json state = env.State();
  REQUIRE(HasKeyEndingWith(state["clusters"], "/clusters/shared-c"));
  std::set<std::string> pools;
  for (const auto& [key, cluster] : state["clusters"].items()) {
    for (const auto& pool : cluster.value("nodePools", json::array())) pools.insert(pool.value("name", ""));
  }
  CHECK(pools.contains("b-pool"));        // run b's, live: untouched
  CHECK_FALSE(pools.contains("v6e-16"));  // run a's, expired: deleted alone
}

}  // namespace
}  // namespace tputrain::workflow::testing
