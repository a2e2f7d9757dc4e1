// The one operation waiter and each API's adapter on it, over a scripted transport: when a wait
// ends, how a failed operation becomes an Error, backoff, timeout, cancellation and progress.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tputrain/gcp/artifactregistry/client.h"
#include "tputrain/gcp/cloudbuild/client.h"
#include "tputrain/gcp/compute/client.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/gcp/serviceusage/client.h"
#include "tputrain/gcp/tpu/client.h"

namespace tputrain::gcp::operations {
namespace {

using nlohmann::json;
using testing::FakeClock;
using testing::FakeTransport;
using testing::JsonReply;

constexpr char kTpuOp[] = "projects/p/locations/z/operations/op-1";

PollOptions Patient() {
  PollOptions options;
  options.timeout = std::chrono::minutes(10);
  return options;
}

TEST_CASE("an operation is read at once, then with growing pauses, until done; each read is shown") {
  FakeTransport transport;
  transport.On("GET", "/operations/op-1",
               {JsonReply(200, R"({"name":"projects/p/locations/z/operations/op-1"})"),
                JsonReply(200, R"({"name":"projects/p/locations/z/operations/op-1","done":false})"),
                JsonReply(200, R"({"name":"projects/p/locations/z/operations/op-1","done":true,
                                   "response":{"name":"projects/p/locations/z/nodes/n"}})")});
  tpu::Client client(transport, "http://t/");
  FakeClock clock;
  std::vector<bool> seen;
  auto done = Wait(tpu::OperationWaiting(client, kTpuOp), Patient(), {clock, clock, nullptr},
                   [&](const tpu::Operation& op) { seen.push_back(op.done); });
  REQUIRE(done);
  CHECK(done->done);
  CHECK(done->response["name"] == "projects/p/locations/z/nodes/n");
  CHECK(seen == std::vector<bool>{false, false, true});
  CHECK(transport.requests().front().url == "http://t/v2/projects/p/locations/z/operations/op-1");
  const auto sleeps = clock.sleeps();
  REQUIRE(sleeps.size() == 2);
  CHECK(sleeps[0] == PollDelay(Patient(), 0));
  CHECK(sleeps[1] == PollDelay(Patient(), 1));
  CHECK(sleeps[0] < sleeps[1]);
}

TEST_CASE("a done operation's google.rpc.Status is its failure: the kind of its code, its message, where") {
  FakeTransport transport;
  transport.On("GET", "/operations/op-1", {JsonReply(200, R"({"name":"op-1","done":true,
      "error":{"code":8,"message":"There is no more capacity in the zone \"z\""}})")});
  tpu::Client client(transport, "http://t/");
  FakeClock clock;
  auto done = Wait(tpu::OperationWaiting(client, kTpuOp), Patient(), {clock, clock, nullptr});
  REQUIRE_FALSE(done);
  CHECK(done.error().kind == core::ErrorKind::kResourceExhausted);
  CHECK(done.error().message == "There is no more capacity in the zone \"z\"");
  CHECK(done.error().where == std::string("tpu operation ") + kTpuOp);
  CHECK(done.error().http_status == 0);
}

TEST_CASE("an operation read: an error without a code is UNKNOWN; fields of the wrong type read as absent") {
  auto op = OperationFromJson(json::parse(R"({"name":"o","done":true,"error":{"message":"boom"}})"));
  REQUIRE(op.error);
  CHECK(op.error->code == 2);
  CHECK(ErrorFromRpcStatus(*op.error, "w").kind == core::ErrorKind::kInternal);
  auto odd = OperationFromJson(json::parse(R"({"name":7,"done":"yes","error":{"code":"8","message":[]}})"));
  CHECK(odd.name.empty());
  CHECK_FALSE(odd.done);
  REQUIRE(odd.error);
  CHECK(odd.error->code == 2);
  CHECK(odd.error->message.empty());
  CHECK_FALSE(OperationFromJson(json::array()).done);
}

TEST_CASE("transient read failures are tolerated; a lasting one is returned as it is") {
  FakeTransport transport;
  const auto unavailable = JsonReply(503, R"({"error":{"code":503,"status":"UNAVAILABLE","message":"backend"}})");
  transport.On("GET", "/operations/op-1", {unavailable, unavailable, JsonReply(200, R"({"name":"op-1","done":true})")});
  tpu::Client client(transport, "http://t/");
  FakeClock clock;
  CHECK(Wait(tpu::OperationWaiting(client, kTpuOp), Patient(), {clock, clock, nullptr}));

  FakeTransport denied;
  denied.On("GET", "/operations/op-1",
            {JsonReply(403, R"({"error":{"code":403,"status":"PERMISSION_DENIED","message":"no"}})")});
  tpu::Client denied_client(denied, "http://t/");
  auto done = Wait(tpu::OperationWaiting(denied_client, kTpuOp), Patient(), {clock, clock, nullptr});
  REQUIRE_FALSE(done);
  CHECK(done.error().kind == core::ErrorKind::kPermissionDenied);
  CHECK(done.error().http_status == 403);
  CHECK(denied.Count("GET", "/operations/op-1") == 1);
}

TEST_CASE("a timeout stops the wait, not the operation; a cancelled wait reads nothing") {
  FakeTransport transport;
  transport.On("GET", "/operations/op-1", {JsonReply(200, R"({"name":"op-1","done":false})")});
  tpu::Client client(transport, "http://t/");
  FakeClock clock;
  PollOptions options;
  options.timeout = std::chrono::seconds(30);
  auto timed_out = Wait(tpu::OperationWaiting(client, kTpuOp), options, {clock, clock, nullptr});
  REQUIRE_FALSE(timed_out);
  CHECK(timed_out.error().kind == core::ErrorKind::kDeadlineExceeded);
  CHECK(timed_out.error().message == "stopped waiting after 30s (the operation goes on)");

  core::CancelToken cancel;
  cancel.Cancel();
  const auto before = transport.requests().size();
  auto cancelled = Wait(tpu::OperationWaiting(client, kTpuOp), options, {clock, clock, &cancel});
  REQUIRE_FALSE(cancelled);
  CHECK(cancelled.error().kind == core::ErrorKind::kCancelled);
  CHECK(core::ExitCodeFor(cancelled.error()) == core::kExitInterrupted);
  CHECK(transport.requests().size() == before);
}

TEST_CASE("WaitFrom: an answer that has ended is not read again; a failed one is its failure") {
  FakeTransport transport;
  serviceusage::Client client(transport, "http://su/");
  FakeClock clock;
  auto done = WaitFrom(OperationFromJson(json::parse(R"({"name":"operations/e1","done":true})")),
                       serviceusage::OperationWaiting(client, "operations/e1"), Patient(), {clock, clock, nullptr});
  CHECK(done);
  auto failed = WaitFrom(
      OperationFromJson(json::parse(R"({"name":"operations/e1","done":true,"error":{"code":7,"message":"billing"}})")),
      serviceusage::OperationWaiting(client, "operations/e1"), Patient(), {clock, clock, nullptr});
  REQUIRE_FALSE(failed);
  CHECK(failed.error().kind == core::ErrorKind::kPermissionDenied);
  CHECK(failed.error().where == "serviceusage.services.enable");
  CHECK(transport.requests().empty());

  transport.On("GET", "/v1/operations/e2", {JsonReply(200, R"({"name":"operations/e2","done":true})")});
  auto read = WaitFrom(OperationFromJson(json::parse(R"({"name":"operations/e2"})")),
                       serviceusage::OperationWaiting(client, "operations/e2"), Patient(), {clock, clock, nullptr});
  CHECK(read);
  CHECK(transport.Count("GET", "/v1/operations/e2") == 1);
  CHECK(clock.sleeps().empty());
}

TEST_CASE("Artifact Registry's operations fail as google.longrunning ones do") {
  FakeTransport transport;
  transport.On("GET", "/v1/projects/p/locations/l/operations/a1",
               {JsonReply(200, R"({"name":"projects/p/locations/l/operations/a1","done":true,
                                   "error":{"code":6,"message":"exists"}})")});
  artifactregistry::Client client(transport, "http://ar/");
  FakeClock clock;
  auto done = Wait(artifactregistry::OperationWaiting(client, "projects/p/locations/l/operations/a1"), Patient(),
                   {clock, clock, nullptr});
  REQUIRE_FALSE(done);
  CHECK(done.error().kind == core::ErrorKind::kAlreadyExists);
  CHECK(done.error().where == "artifactregistry.projects.locations.operations.get");
}

TEST_CASE("GKE's operations: DONE ends them; an error or any statusMessage is a failure, as gcloud reads it") {
  const container::LocationRef location{"p", "us-east5"};
  FakeClock clock;
  {
    FakeTransport transport;
    transport.On("GET", "/operations/operation-1",
                 {JsonReply(200, R"({"name":"operation-1","status":"RUNNING"})"),
                  JsonReply(200, R"({"name":"operation-1","status":"DONE"})")});
    container::Client client(transport, "http://c/");
    auto done = Wait(container::OperationWaiting(client, location, "operation-1"), Patient(), {clock, clock, nullptr});
    REQUIRE(done);
    CHECK(done->done());
    CHECK(transport.requests().front().url == "http://c/v1/projects/p/locations/us-east5/operations/operation-1");
  }
  {
    FakeTransport transport;
    transport.On("GET", "/operations/operation-2",
                 {JsonReply(200, R"({"name":"operation-2","status":"DONE","statusMessage":"stockout in us-east5-b",
                                     "error":{"code":8,"message":"resource exhausted"}})")});
    container::Client client(transport, "http://c/");
    auto done = Wait(container::OperationWaiting(client, location, "operation-2"), Patient(), {clock, clock, nullptr});
    REQUIRE_FALSE(done);
    CHECK(done.error().kind == core::ErrorKind::kResourceExhausted);
    CHECK(done.error().message == "stockout in us-east5-b");
    CHECK(done.error().where == "container operation operation-2");
  }
  {
    FakeTransport transport;
    transport.On("GET", "/operations/operation-3",
                 {JsonReply(200, R"({"name":"operation-3","status":"DONE","statusMessage":"node pool broke"})")});
    container::Client client(transport, "http://c/");
    auto done = Wait(container::OperationWaiting(client, location, "operation-3"), Patient(), {clock, clock, nullptr});
    REQUIRE_FALSE(done);
    CHECK(done.error().kind == core::ErrorKind::kInternal);
    CHECK(done.error().message == "node pool broke");
  }
}

TEST_CASE("Compute's global operations go through the same loop; a DONE one's error is its failure") {
  FakeTransport transport;
  transport.On("GET", "/global/operations/op-fw",
               {JsonReply(200, R"({"name":"op-fw","status":"RUNNING"})"),
                JsonReply(200, R"({"name":"op-fw","status":"DONE","httpErrorStatusCode":409,
                                   "error":{"errors":[{"code":"RESOURCE_ALREADY_EXISTS","message":"exists"}]}})")});
  compute::Client client(transport, "http://ce/compute/v1/");
  FakeClock clock;
  std::vector<compute::OperationStatus> seen;
  auto done = Wait(compute::GlobalOperationWaiting(client, "p", "op-fw"), Patient(), {clock, clock, nullptr},
                   [&](const compute::Operation& op) { seen.push_back(op.status); });
  REQUIRE_FALSE(done);
  CHECK(done.error().kind == core::ErrorKind::kAlreadyExists);
  CHECK(done.error().http_status == 409);
  CHECK(seen ==
        std::vector<compute::OperationStatus>{compute::OperationStatus::kRunning, compute::OperationStatus::kDone});
  CHECK(transport.requests().front().url == "http://ce/compute/v1/projects/p/global/operations/op-fw");
}

TEST_CASE("a queued resource's wait ends ACTIVE, or in a state it does not leave by itself") {
  FakeClock clock;
  const tpu::QueuedResourceRef ref{"p", "z", "ms"};
  {
    FakeTransport transport;
    transport.On("GET", "/queuedResources/ms",
                 {JsonReply(200, R"({"name":"ms","state":{"state":"WAITING_FOR_RESOURCES"}})"),
                  JsonReply(200, R"({"name":"ms","state":{"state":"ACTIVE"}})")});
    tpu::Client client(transport, "http://t/");
    auto active = Wait(tpu::QueuedResourceWaiting(client, ref), Patient(), {clock, clock, nullptr});
    REQUIRE(active);
    CHECK(active->state == tpu::QueuedResourceState::kActive);
    CHECK(transport.Count("GET", "/queuedResources/ms") == 2);
  }
  {
    FakeTransport transport;
    transport.On("GET", "/queuedResources/ms", {JsonReply(200, R"({"name":"ms","state":{"state":"FAILED",
                                     "failedData":{"error":{"code":8,"message":"no capacity"}}}})")});
    tpu::Client client(transport, "http://t/");
    auto failed = Wait(tpu::QueuedResourceWaiting(client, ref), Patient(), {clock, clock, nullptr});
    REQUIRE_FALSE(failed);
    CHECK(failed.error().kind == core::ErrorKind::kFailedPrecondition);
    CHECK(failed.error().message == "FAILED: no capacity");
    CHECK(ReadOnce(tpu::QueuedResourceWaiting(client, ref)).error().message == "FAILED: no capacity");
  }
  tpu::QueuedResource suspended;
  suspended.state = tpu::QueuedResourceState::kSuspended;
  CHECK(tpu::QueuedResourceFailure(suspended)->message == "state SUSPENDED");
  suspended.state = tpu::QueuedResourceState::kProvisioning;
  CHECK_FALSE(tpu::QueuedResourceFailure(suspended));
}

TEST_CASE("ReadOnce: one read says whether it has ended well, or how it failed") {
  FakeTransport transport;
  transport.On("GET", "/operations/op-1",
               {JsonReply(200, R"({"name":"op-1"})"), JsonReply(200, R"({"name":"op-1","done":true})")});
  tpu::Client client(transport, "http://t/");
  auto first = ReadOnce(tpu::OperationWaiting(client, kTpuOp));
  REQUIRE(first);
  CHECK_FALSE(*first);
  auto second = ReadOnce(tpu::OperationWaiting(client, kTpuOp));
  REQUIRE(second);
  CHECK(*second);
}

TEST_CASE("a Cloud Build build is waited for through builds.get; any end but SUCCESS is its failure") {
  FakeTransport transport;
  transport.On("GET", "/builds/b1",
               {JsonReply(200, R"({"id":"b1","status":"QUEUED"})"), JsonReply(200, R"({"id":"b1","status":"WORKING"})"),
                JsonReply(200, R"({"id":"b1","status":"FAILURE","failureInfo":{"detail":"step 0 exited 1"},
                                   "logUrl":"https://console/b1"})")});
  cloudbuild::Client client(transport, "http://cb/");
  FakeClock clock;
  auto done = Wait(cloudbuild::BuildWaiting(client, {"p", "global", "b1"}), Patient(), {clock, clock, nullptr});
  REQUIRE_FALSE(done);
  CHECK(done.error().kind == core::ErrorKind::kFailedPrecondition);
  CHECK(done.error().message == "build b1 ended FAILURE: step 0 exited 1 (log: https://console/b1)");
  CHECK(transport.Count("GET", "/v1/projects/p/locations/global/builds/b1") == 3);

  cloudbuild::Build build;
  build.id = "b2";
  build.status = cloudbuild::BuildStatus::kCancelled;
  CHECK(cloudbuild::BuildFailure(build)->kind == core::ErrorKind::kCancelled);
  build.status = cloudbuild::BuildStatus::kTimeout;
  CHECK(cloudbuild::BuildFailure(build)->kind == core::ErrorKind::kDeadlineExceeded);
  build.status = cloudbuild::BuildStatus::kSuccess;
  CHECK_FALSE(cloudbuild::BuildFailure(build));
  build.status = cloudbuild::BuildStatus::kWorking;
  CHECK_FALSE(cloudbuild::BuildFailure(build));
}

}  // namespace
}  // namespace tputrain::gcp::operations
