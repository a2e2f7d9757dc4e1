#include <catch2/catch.hpp>

#include <string>

#include "tputrain/state/access_record.h"

using nlohmann::json;
using tputrain::state::AccessRecord;
using tputrain::state::AccessRecordFromJson;

TEST_CASE("an access record is a GKE cluster or a kubeconfig context, written as the ledger has it", "[unit]") {
  auto gke = AccessRecord::Gke("projects/p/locations/us-central1/clusters/c");
  CHECK(gke.IsGke());
  CHECK(gke.Id() == "gke:projects/p/locations/us-central1/clusters/c");
  CHECK(ToJson(gke) == json{{"gke_cluster", "projects/p/locations/us-central1/clusters/c"}});

  auto kubeconfig = AccessRecord::Kubeconfig("/home/ada/.kube/config", "kind-tputrain");
  CHECK_FALSE(kubeconfig.IsGke());
  CHECK(kubeconfig.Id() == "kubeconfig:kind-tputrain");
  CHECK(ToJson(kubeconfig) == json{{"kubeconfig", "/home/ada/.kube/config"}, {"context", "kind-tputrain"}});
  // The default kubeconfig lookup is recorded as an empty path.
  CHECK(ToJson(AccessRecord::Kubeconfig("", "ctx")) == json{{"kubeconfig", ""}, {"context", "ctx"}});

  for (const auto& access : {gke, kubeconfig}) {
    auto read = AccessRecordFromJson(ToJson(access));
    REQUIRE(read);
    CHECK(*read == access);
  }
}

TEST_CASE("an access record of the wrong shape is one line naming the field", "[unit]") {
  auto message = [](const json& value) {
    auto read = AccessRecordFromJson(value, "entries[4].details.access");
    REQUIRE_FALSE(read);
    CHECK(read.error().message.find('\n') == std::string::npos);
    return read.error().message;
  };
  CHECK(message(json::array()) == "entries[4].details.access: expected an object");
  CHECK(message(json{{"gke_cluster", 7}}) == "entries[4].details.access.gke_cluster: expected a string");
  CHECK(message(json{{"kubeconfig", "/k"}, {"context", nullptr}}) ==
        "entries[4].details.access.context: expected a string");
  CHECK(message(json{{"gke_cluster", ""}}).find("gke_cluster: expected a cluster name") != std::string::npos);
}
