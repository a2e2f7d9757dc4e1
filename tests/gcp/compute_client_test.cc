#include "tputrain/gcp/compute/client.h"
#include "tputrain/gcp/compute/resource_policies.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tputrain/gcp/endpoints.h"

namespace tputrain::gcp::compute {
namespace {

using nlohmann::json;
using tputrain::testing::FakeTransport;
using tputrain::testing::JsonReply;

Firewall IapRule() {
  Firewall rule;
  rule.name = "allow-iap-ray";
  rule.network = "default";
  rule.allowed = {{"tcp", {"8265"}}};
  rule.source_ranges = {"35.235.240.0/20"};
  return rule;
}

TEST_CASE("compute: firewalls.insert carries gcloud's fields, the network as a partial link") {
  FakeTransport transport;
  Client client(transport, "https://compute.googleapis.com/compute/v1/");
  auto request = client.BuildInsertFirewall("p", IapRule());
  CHECK(request.method == "POST");
  CHECK(request.url == "https://compute.googleapis.com/compute/v1/projects/p/global/firewalls");
  CHECK_FALSE(request.idempotent);
  // gcloud compute firewall-rules create allow-iap-ray --network default --direction INGRESS
  // --allow tcp:8265 --source-ranges 35.235.240.0/20 sends these, and the network as a full link.
  json body = json::parse(request.body);
  CHECK(body == json::parse(R"({"allowed":[{"IPProtocol":"tcp","ports":["8265"]}],"direction":"INGRESS",
    "name":"allow-iap-ray","network":"projects/p/global/networks/default","priority":1000,
    "sourceRanges":["35.235.240.0/20"]})"));
  auto deleting = client.BuildDeleteFirewall("p", "allow-iap-ray");
  CHECK(deleting.method == "DELETE");
  CHECK(deleting.url == "https://compute.googleapis.com/compute/v1/projects/p/global/firewalls/allow-iap-ray");
  // A name is one path segment, whatever it holds.
  CHECK(client.BuildDeleteFirewall("p", "../x").url.ends_with("/global/firewalls/..%2Fx"));
}

TEST_CASE("compute: get, list (paged) and operations, parsed") {
  FakeTransport transport;
  Client client(transport, "http://e/compute/v1/");
  transport.On("GET", "/global/firewalls?pageToken=t2",
               {JsonReply(200, R"({"items":[{"name":"b","direction":"EGRESS","disabled":true}]})")});
  transport.On("GET", "/global/firewalls",
               {JsonReply(200, R"({"items":[{"name":"a","network":"http://e/compute/v1/projects/p/global/networks/n",
                 "allowed":[{"IPProtocol":"tcp","ports":["22","8000-9000"]}],"sourceRanges":["0.0.0.0/0"],
                 "targetTags":["t"],"priority":900}],"nextPageToken":"t2"})")});
  auto rules = client.ListFirewalls("p");
  REQUIRE(rules);
  REQUIRE(rules->size() == 2);
  CHECK((*rules)[0].name == "a");
  CHECK(NetworkName((*rules)[0].network) == "n");
  CHECK((*rules)[0].allowed == std::vector<ProtocolPorts>{{"tcp", {"22", "8000-9000"}}});
  CHECK((*rules)[0].target_tags == std::vector<std::string>{"t"});
  CHECK((*rules)[0].priority == 900);
  CHECK((*rules)[1].direction == Direction::kEgress);
  CHECK((*rules)[1].disabled);

  FakeTransport other;  // a fresh script: the list's rules would match this URL first
  Client second(other, "http://e/compute/v1/");
  other.On(
      "GET", "/global/firewalls/missing",
      {JsonReply(404,
                 R"({"error":{"code":404,"message":"The resource 'projects/p/global/firewalls/missing' was not found",
                 "errors":[{"domain":"global","reason":"notFound","message":"not found"}]}})")});
  auto missing = second.GetFirewall("p", "missing");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind == core::ErrorKind::kNotFound);

  auto done = OperationFromJson(json::parse(R"({"name":"op","status":"DONE","targetLink":"x"})"));
  REQUIRE(done);
  CHECK(done->done());
  CHECK_FALSE(done->error);
  auto failed = OperationFromJson(json::parse(R"({"name":"op","status":"DONE","httpErrorStatusCode":409,
    "error":{"errors":[{"code":"RESOURCE_ALREADY_EXISTS","message":"already exists"}]}})"));
  REQUIRE(failed);
  REQUIRE(failed->error);
  CHECK(failed->error->kind == core::ErrorKind::kAlreadyExists);
  CHECK(OperationFromJson(json::parse(R"({"name":"op","status":"PENDING"})"))->status == OperationStatus::kPending);
  CHECK_FALSE(OperationFromJson(json::parse("[]")));
}

TEST_CASE("compute: a workload policy is gcloud's body; get, list (paged), delete and regional operations, parsed") {
  FakeTransport transport;
  ResourcePolicyClient client(transport, "http://e/compute/v1/");
  const ResourcePolicyRef ref{"p", "us-central1", "wp"};
  auto insert = client.BuildInsert(ref, WorkloadPolicy{kHighThroughput, "4x4x4", "", "", true});
  CHECK(insert.method == "POST");
  CHECK(insert.url == "http://e/compute/v1/projects/p/regions/us-central1/resourcePolicies");
  CHECK_FALSE(insert.idempotent);
  // gcloud compute resource-policies create workload-policy wp --region us-central1
  // --type HIGH_THROUGHPUT --accelerator-topology 4x4x4
  CHECK(json::parse(insert.body) == json::parse(R"({"name":"wp","region":"us-central1",
    "workloadPolicy":{"acceleratorTopology":"4x4x4","type":"HIGH_THROUGHPUT"}})"));
  CHECK(client.BuildDelete(ResourcePolicyRef{"p", "us-central1", "../x"}).url.ends_with("/resourcePolicies/..%2Fx"));
  CHECK(ref.Key() == "projects/p/regions/us-central1/resourcePolicies/wp");

  transport.On("GET", "/resourcePolicies/wp",
               {JsonReply(200, R"({"name":"wp","status":"READY","description":"tputrain-run=r1",
                 "workloadPolicy":{"type":"HIGH_THROUGHPUT","acceleratorTopology":"2x2x4"}})")});
  auto got = client.Get(ref);
  REQUIRE(got);
  CHECK(got->is_workload_policy);
  CHECK(got->type == "HIGH_THROUGHPUT");
  CHECK(got->accelerator_topology == "2x2x4");
  CHECK(got->status == "READY");
  CHECK(got->description == "tputrain-run=r1");
  CHECK_FALSE(WorkloadPolicyFromJson(json::parse(R"({"name":"s","snapshotSchedulePolicy":{}})")).is_workload_policy);

  transport.On("GET", "/resourcePolicies?pageToken=n", {JsonReply(200, R"({"items":[{"name":"b"}]})")});
  transport.On("GET", "/regions/us-central1/resourcePolicies",
               {JsonReply(200, R"({"items":[{"name":"a"}],"nextPageToken":"n"})")});
  auto names = client.List("p", "us-central1");
  REQUIRE(names);
  CHECK(*names == std::vector<std::string>{"a", "b"});

  transport.On("GET", "/regions/us-central1/operations/op1",
               {JsonReply(200, R"({"name":"op1","status":"DONE","httpErrorStatusCode":400,
                 "error":{"errors":[{"code":"RESOURCE_IN_USE_BY_ANOTHER_RESOURCE","message":"in use"}]}})")});
  auto op = client.GetRegionOperation("p", "us-central1", "op1");
  REQUIRE(op);
  REQUIRE(op->error);
  CHECK(op->error->message == "in use");
}

TEST_CASE("compute: the endpoint follows CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE, as gcloud's does") {
  CHECK(Endpoints{}.compute == "https://compute.googleapis.com/compute/v1/");
  core::Env env(
      std::map<std::string, std::string>{{"CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE", "http://127.0.0.1:9/compute/v1"}});
  CHECK(Endpoints::FromEnv(env).compute == "http://127.0.0.1:9/compute/v1/");
  core::Env bad(std::map<std::string, std::string>{{"CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE", "nope"}});
  auto checked = CheckEndpointOverrides(bad);
  REQUIRE_FALSE(checked);
  CHECK(checked.error().message.starts_with("CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE:"));
}

}  // namespace
}  // namespace tputrain::gcp::compute
