// What a scan lists and what --delete-leaked then sends, on a scripted transport whose list answers
// say what the emulator never would: a resource named in another project. (The scan's behaviour
// against the emulator is scan_integration_test's.)
#include <algorithm>
#include <map>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tputrain/workflow/scan.h"

namespace tputrain::workflow {
namespace {

using nlohmann::json;
using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;
using tputrain::testing::JsonReply;

struct Warnings final : core::Reporter {
  std::vector<std::string> said;
  void Info(std::string_view) override {}
  void Warn(std::string_view message) override { said.emplace_back(message); }
  void Progress(std::string_view, std::string_view) override {}
  void Done(std::string_view, std::string_view) override {}
  void Debug(std::string_view) override {}
};

json Node(const std::string& name) {
  return {{"name", name}, {"acceleratorType", "v5p-8"}, {"state", "READY"}, {"labels", {{"tputrain-run", "gone"}}}};
}

TEST_CASE("a scan leaves out what a list answer names in another project; --delete-leaked deletes in the one scanned") {
  FakeTransport transport;
  FakeClock clock;
  Warnings reporter;
  ProvisionEnv env{testing::RuntimeOn(clock, reporter), transport, {"http://c/", "http://t/", "http://s/storage/v1/"}};
  transport.On("GET", "http://c/v1/projects/p/locations/-/clusters", {JsonReply(200, R"({"clusters": []})")});
  transport.On("GET", "http://t/v2/projects/p/locations/-/nodes",
               {JsonReply(200, json{{"nodes",
                                     {Node("projects/victim-project/locations/us-east5-a/nodes/theirs"),
                                      Node("projects/p/locations/us-east5-a/nodes/mine"),
                                      Node("projects/123456789/locations/us-east5-a/nodes/numbered")}}}
                                   .dump())});
  transport.On("GET", "http://t/v2/projects/p/locations/-/queuedResources", {JsonReply(200, "{}")});
  transport.On("GET", "http://s/storage/v1/b?project=p", {JsonReply(200, R"({"items": []})")});

  ScanRequest request{"p", {}, {}, ""};
  auto leaked = ScanLeaked(env, request, {});
  REQUIRE(leaked);
  std::vector<std::string> names;
  for (const auto& item : *leaked) names.push_back(item.name);
  // Another project's is left alone, said; a project number is the scanned project's own spelling.
  CHECK(names == std::vector<std::string>{"mine", "numbered"});
  REQUIRE_FALSE(reporter.said.empty());
  CHECK(reporter.said.back() ==
        "left alone: tpu-vm projects/victim-project/locations/us-east5-a/nodes/theirs came back in a list of project p "
        "but names another project");

  transport.On("DELETE", "/nodes/", {JsonReply(200, R"({"name": "projects/p/locations/us-east5-a/operations/o1"})")});
  transport.On("GET", "/operations/o1",
               {JsonReply(200, R"({"name": "projects/p/locations/us-east5-a/operations/o1", "done": true})")});
  auto deleted = DeleteLeaked(env, *leaked);
  REQUIRE(deleted);
  std::vector<std::string> urls;
  for (const auto& sent : transport.requests()) {
    if (sent.method == "DELETE") urls.push_back(sent.url);
  }
  std::sort(urls.begin(), urls.end());
  CHECK(urls == std::vector<std::string>{"http://t/v2/projects/p/locations/us-east5-a/nodes/mine",
                                         "http://t/v2/projects/p/locations/us-east5-a/nodes/numbered"});
}

TEST_CASE("a listed cluster holding another run's node pool stays; its own listed pools are deleted one by one") {
  FakeTransport transport;
  FakeClock clock;
  core::NullReporter reporter;
  ProvisionEnv env{testing::RuntimeOn(clock, reporter), transport, {"http://c/", "http://t/", "http://s/storage/v1/"}};
  const json expired = {{"tputrain-run", "a"}, {"tputrain-expires", "1000"}};
  const json cluster = {
      {"name", "shared"},
      {"location", "us-east5-b"},
      {"resourceLabels", expired},
      {"nodePools",
       {{{"name", "default-pool"}, {"config", {{"machineType", "e2-standard-4"}}}, {"initialNodeCount", 3}},
        {{"name", "a-pool"}, {"config", {{"machineType", "ct6e-standard-4t"}, {"resourceLabels", expired}}}},
        {{"name", "b-pool"},
         {"config", {{"machineType", "ct6e-standard-4t"}, {"resourceLabels", {{"tputrain-run", "b"}}}}}}}}};
  transport.On("GET", "http://c/v1/projects/p/locations/-/clusters",
               {JsonReply(200, json{{"clusters", {cluster}}}.dump())});
  transport.On("GET", "http://t/v2/projects/p/locations/-/nodes", {JsonReply(200, "{}")});
  transport.On("GET", "http://t/v2/projects/p/locations/-/queuedResources", {JsonReply(200, "{}")});
  transport.On("GET", "http://s/storage/v1/b?project=p", {JsonReply(200, "{}")});

  ScanRequest request{"p", {}, {}, ""};
  request.expired = true;
  request.now_unix = 2000;
  auto leaked = ScanLeaked(env, request, {});
  REQUIRE(leaked);
  REQUIRE(leaked->size() == 2);
  CHECK((*leaked)[0].kind == ResourceKind::kCluster);
  CHECK((*leaked)[0].goes_with == std::vector<std::string>{"a-pool"});
  CHECK((*leaked)[0].kept == "it holds node pool b-pool of run b");
  CHECK(ToJson((*leaked)[0])["kept"] == "it holds node pool b-pool of run b");
  CHECK((*leaked)[1].name == "a-pool");

  transport.On("DELETE", "/nodePools/a-pool",
               {JsonReply(200, R"({"name": "projects/p/locations/us-east5-b/operations/o2", "status": "DONE"})")});
  transport.On("GET", "/operations/o2",
               {JsonReply(200, R"({"name": "projects/p/locations/us-east5-b/operations/o2", "status": "DONE"})")});
  auto deleted = DeleteLeaked(env, *leaked);
  REQUIRE(deleted);
  CHECK(transport.Count("DELETE", "/clusters/shared") == 1);  // the pool's DELETE names its cluster
  CHECK(transport.Count("DELETE", "/nodePools/a-pool") == 1);
  CHECK(transport.Count("DELETE", "/nodePools/b-pool") == 0);
  std::map<std::string, OutcomeAction> actions;
  for (const auto& outcome : *deleted) actions[outcome.name] = outcome.action;
  CHECK(actions.at("shared") == OutcomeAction::kKeptShared);
  CHECK(actions.at("a-pool") == OutcomeAction::kDeleted);
}

TEST_CASE("the hint after a scan repeats every flag that chose the list") {
  ScanRequest request{"p", {"us-east5-a"}, {"us-east5-a"}, "nightly"};
  request.expired = true;
  CHECK(DeleteLeakedCommand(request, "/tmp/my state") ==
        "tputrain cleanup --scan --expired --delete-leaked --yes --project p --location us-east5-a --run nightly "
        "--state-dir '/tmp/my state'");
  CHECK(DeleteLeakedCommand(ScanRequest{"p", {}, {}, ""}, "") ==
        "tputrain cleanup --scan --delete-leaked --yes --project p");
}

}  // namespace
}  // namespace tputrain::workflow
