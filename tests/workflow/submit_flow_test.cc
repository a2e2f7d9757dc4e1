// workflow::Submit decides what is connected, recorded and sent: bad input before any connection,
// --dry-run without one, a direct submit recorded in the ledger before Ray sees it.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "testing/fake_transport.h"
#include "tputrain/state/ledger.h"
#include "tputrain/workflow/submit_flow.h"

namespace tputrain::workflow {
namespace {

namespace fs = std::filesystem;
using testing::FakeClock;
using testing::FakeTransport;

struct Lines final : core::Reporter {
  void Info(std::string_view message) override { info.emplace_back(message); }
  void Warn(std::string_view) override {}
  void Progress(std::string_view, std::string_view) override {}
  void Done(std::string_view, std::string_view) override {}
  void Debug(std::string_view) override {}
  std::vector<std::string> info;
};

struct Flow {
  FakeClock clock;
  Lines reporter;
  SubmitEnv env{testing::RuntimeOn(clock, reporter), {}, {}, {}, {}};
  int connects = 0;
  int ledgers = 0;

  Flow() {
    env.connect_direct = [this]() -> core::Result<DirectRay> {
      ++connects;
      return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "no Ray in this test"));
    };
    env.connect_cluster = [this](const std::string&) -> core::Result<ClusterRay> {
      ++connects;
      return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "no cluster in this test"));
    };
    env.open_ledger = [this]() -> core::Result<LedgerRecorder> {
      ++ledgers;
      return LedgerRecorder{};
    };
  }
};

SubmitRequest Smoke() {
  SubmitRequest request;
  request.spec.model = "maxtext-cpu-smoke";
  request.spec.submission_id = "raysubmit_test";
  return request;
}

TEST_CASE("bad input fails before anything is connected or recorded", "[unit]") {
  Flow flow;
  auto request = Smoke();
  request.spec.model = "no-such-model";
  auto result = Submit(flow.env, request);
  REQUIRE_FALSE(result);
  CHECK(result.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK(result.error().message.rfind("--model: ", 0) == 0);
  request = Smoke();
  request.spec.sets = {"no equals sign"};
  request.raycluster = RayClusterRequest{};
  CHECK_FALSE(Submit(flow.env, request));
  CHECK(flow.connects == 0);
  CHECK(flow.ledgers == 0);
}

TEST_CASE("a dry run to an address connects nothing and shows the job as it would be sent", "[unit]") {
  Flow flow;
  auto request = Smoke();
  request.dry_run = true;
  auto result = Submit(flow.env, request);
  REQUIRE(result);
  REQUIRE(result->plan);
  CHECK(*result->plan == DescribeJob(result->job));
  CHECK(flow.connects == 0);
  CHECK(flow.ledgers == 0);
}

TEST_CASE("a direct submit records the job before sending it and reports it", "[unit]") {
  Flow flow;
  FakeTransport transport;
  transport.On("GET", "/api/version", {http::Response{200, {}, R"({"version":"4","ray_version":"2.60.0"})"}});
  transport.On("POST", "/api/jobs/", {http::Response{200, {}, R"({"submission_id":"raysubmit_test"})"}});
  ray::ClientOptions options;
  options.address = "http://127.0.0.1:8265";
  ray::JobsClient client(transport, flow.clock, options);
  flow.env.connect_direct = [&]() -> core::Result<DirectRay> { return DirectRay{&client, {}}; };
  std::string dir = (fs::temp_directory_path() / ("tputrain-submit-flow-" + std::to_string(::getpid()))).string();
  state::LedgerStore store(dir, flow.clock);
  flow.env.open_ledger = [&]() -> core::Result<LedgerRecorder> { return LedgerRecorder{&store, "run-1"}; };

  auto request = Smoke();
  request.wait = false;
  auto result = Submit(flow.env, request);
  REQUIRE(result);
  CHECK_FALSE(result->plan);
  CHECK(result->outcome.submission_id == "raysubmit_test");
  CHECK(result->json["submission_id"] == "raysubmit_test");
  REQUIRE(flow.reporter.info.size() == 1);
  CHECK(flow.reporter.info[0].rfind("Job 'raysubmit_test' submitted: maxtext-cpu-smoke on CPU", 0) == 0);

  auto ledger = store.Load("run-1");
  REQUIRE(ledger);
  const auto* entry = ledger->Find(tputrain::state::ResourceKind::kRayJob, "raysubmit_test");
  REQUIRE(entry != nullptr);
  CHECK(entry->state == state::EntryState::kCreated);
  CHECK(entry->details == nlohmann::json{{"address", "http://127.0.0.1:8265"}});
  fs::remove_all(dir);
}

TEST_CASE("on a cluster, the run's built image is used unless --image, DOCKER_IMAGE or a values file names one",
          "[unit]") {
  const fs::path dir = fs::temp_directory_path() / ("tputrain-submit-image-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string others = (dir / "others.yaml").string();
  const std::string with_image = (dir / "image.yaml").string();
  std::ofstream(others) << "KSA_NAME: ray-ksa\nGS_BUCKET: ckpt\n";
  std::ofstream(with_image) << "DOCKER_IMAGE: registry.example/mine:1\n";
  const std::string built = "us-east5-docker.pkg.dev/p/tputrain/ray-maxtext@sha256:abc";
  const std::string said = "image " + built + " (built by this run; --image overrides)";
  // What submit says before it connects (the test has no cluster, so it stops there).
  auto image_said = [&](std::vector<std::string> values_files, std::vector<std::string> sets) {
    Flow flow;
    flow.env.last_built_image = [&] { return built; };
    auto request = Smoke();
    request.raycluster = RayClusterRequest{};
    request.raycluster->values_files = std::move(values_files);
    request.raycluster->sets = std::move(sets);
    auto result = Submit(flow.env, request);
    CHECK_FALSE(result);  // no cluster in this test
    CHECK(flow.connects == 1);
    return std::find(flow.reporter.info.begin(), flow.reporter.info.end(), said) != flow.reporter.info.end();
  };
  CHECK(image_said({}, {}));
  CHECK(image_said({others}, {}));  // a values file of other template values leaves the image to the run
  CHECK_FALSE(image_said({others, with_image}, {}));
  CHECK_FALSE(image_said({}, {"DOCKER_IMAGE=registry.example/mine:2"}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tputrain::workflow
