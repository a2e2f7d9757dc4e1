#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "testing/fake_transport.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/credentials.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/workflow/operators.h"

namespace tputrain::workflow {
namespace {

using tputrain::testing::FakeTransport;
using tputrain::testing::JsonReply;

// An API server whose discovery serves only the built-in groups and JobSet.
struct ServedJobSetOnly {
  FakeTransport transport;
  std::unique_ptr<k8s::Client> client;

  ServedJobSetOnly() {
    transport.On("GET", "/apis/jobset.x-k8s.io/v1alpha2",
                 {JsonReply(200, R"({"kind":"APIResourceList","groupVersion":"jobset.x-k8s.io/v1alpha2","resources":[
                   {"name":"jobsets","singularName":"jobset","namespaced":true,"kind":"JobSet","verbs":["get"]}]})")});
    transport.On("GET", "/apis", {JsonReply(200, R"({"kind":"APIGroupList","groups":[
                   {"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],
                    "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
                   {"name":"jobset.x-k8s.io","versions":[{"groupVersion":"jobset.x-k8s.io/v1alpha2","version":"v1alpha2"}],
                    "preferredVersion":{"groupVersion":"jobset.x-k8s.io/v1alpha2","version":"v1alpha2"}}]})")});
    transport.On("GET", "/api", {JsonReply(200, R"({"kind":"APIVersions","versions":["v1"]})")});
    client = std::make_unique<k8s::Client>(transport, "https://k8s.test");
  }
};

TEST_CASE("operators check says which kinds are served and how to get the others") {
  ServedJobSetOnly server;
  k8s::Discovery discovery(*server.client);
  auto statuses = CheckOperators(*server.client, discovery, KnownOperators());
  REQUIRE(statuses);
  REQUIRE(statuses->size() == 3);
  CHECK((*statuses)[0].info.name == "kuberay");
  CHECK_FALSE((*statuses)[0].installed);
  CHECK((*statuses)[0].info.fix.find("--update-addons=RayOperator=ENABLED") != std::string::npos);
  CHECK((*statuses)[1].info.name == "lws");
  CHECK_FALSE((*statuses)[1].installed);
  CHECK((*statuses)[1].info.fix == "tputrain operators install lws");
  CHECK((*statuses)[2].info.name == "jobset");
  CHECK((*statuses)[2].installed);
  for (const auto& status : *statuses) CHECK_FALSE(status.tpu_webhook);  // asked of an installed KubeRay only
}

TEST_CASE("operators are named by their short names; the pinned manifests are release assets") {
  auto lws = FindOperator("lws");
  REQUIRE(lws);
  CHECK(lws->manifest_url ==
        "https://github.com/kubernetes-sigs/lws/releases/download/" + lws->version + "/manifests.yaml");
  auto jobset = FindOperator("jobset");
  REQUIRE(jobset);
  CHECK(jobset->kind == "JobSet");
  auto unknown = FindOperator("volcano");
  REQUIRE_FALSE(unknown);
  CHECK(core::IsUsageError(unknown.error()));
  CHECK(unknown.error().message == "operator: expected one of kuberay, lws, jobset, got 'volcano'");
}

TEST_CASE("an operator manifest comes from a file or a URL; a failed download says which") {
  FakeTransport transport;
  transport.On("GET", "https://mirror.test/lws.yaml",
               {JsonReply(200, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: lws-system\n")});
  transport.On("GET", "https://mirror.test/missing.yaml", {JsonReply(404, "Not Found")});
  auto fetched = LoadOperatorManifest(transport, "https://mirror.test/lws.yaml");
  REQUIRE(fetched);
  REQUIRE(fetched->size() == 1);
  CHECK((*fetched)[0].kind == "Namespace");

  auto missing = LoadOperatorManifest(transport, "https://mirror.test/missing.yaml");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "GET https://mirror.test/missing.yaml: HTTP 404");
  CHECK(missing.error().http_status == 404);

  const std::string path = "/tmp/tputrain-operators-test-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n---\n"
                         "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: b\n";
  auto local = LoadOperatorManifest(transport, "file://" + path);
  std::remove(path.c_str());
  REQUIRE(local);
  CHECK(local->size() == 2);
  auto unreadable = LoadOperatorManifest(transport, "/nonexistent/manifest.yaml");
  REQUIRE_FALSE(unreadable);
  CHECK(unreadable.error().message == "--manifest: cannot read /nonexistent/manifest.yaml");
}

}  // namespace
}  // namespace tputrain::workflow
