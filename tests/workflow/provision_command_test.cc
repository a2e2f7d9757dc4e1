// The provisioning commands' one flow: what PlanProvision checks (and in which order) before any
// call, a delete's question, --dry-run's plan, and the hints a failure carries.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "testing/fake_clock.h"
#include "testing/fake_transport.h"
#include "tputrain/core/reporter.h"
#include "tputrain/workflow/provision_command.h"
#include "tputrain/workflow/root.h"

namespace tputrain::workflow {
namespace {

using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;

// Every chain ends in the one fake transport.
class FakeLeaves final : public Leaves {
 public:
  FakeLeaves(FakeTransport& transport, FakeClock& clock) : transport_(transport), clock_(clock) {}
  core::Clock& clock() override { return clock_; }
  core::Sleeper& sleeper() override { return clock_; }
  core::Sleeper& uninterrupted_sleeper() override { return clock_; }
  std::unique_ptr<http::Transport> Transport(http::CurlOptions) override {
    return std::make_unique<Forward>(transport_);
  }
  std::unique_ptr<http::WebSocketConnector> WebSocket(http::WebSocketOptions) override { return nullptr; }

 private:
  class Forward final : public http::Transport {
   public:
    explicit Forward(http::Transport& to) : to_(to) {}
    core::Result<http::Response> Send(const http::Request& request) override { return to_.Send(request); }
    core::Result<http::Response> Stream(const http::Request& request, const http::ChunkHandler& chunk) override {
      return to_.Stream(request, chunk);
    }

   private:
    http::Transport& to_;
  };
  FakeTransport& transport_;
  FakeClock& clock_;
};

struct Fixture {
  FakeTransport transport;
  FakeClock clock;
  FakeLeaves leaves{transport, clock};
  core::Env env;
  std::ostringstream out, err;
  std::istringstream in;
  core::Redactor redactor;
  core::NullReporter reporter;
  int settings_reads = 0;
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tputrain-provision-command-" + std::to_string(::getpid()));

  Fixture() { std::filesystem::create_directories(dir); }
  ~Fixture() { std::filesystem::remove_all(dir); }

  std::unique_ptr<Root> MakeRoot(bool dry_run) {
    RootOptions options{env, out, err, in, redactor, reporter};
    options.dry_run = dry_run;
    options.settings = [this]() -> core::Result<config::Settings> {
      ++settings_reads;
      config::Settings settings;
      settings.Put("project", {"p", "--project"});
      settings.Put("location", {"us-east5-b", "--location"});
      return settings;
    };
    const auto token = dir / "token";
    std::ofstream(token) << "ya29.provision-command-test-token\n";
    options.access_token_file = token.string();
    return std::make_unique<Root>(std::move(options), leaves);
  }
};

TEST_CASE("provision: a delete is checked and asked about before anything is sent") {
  Fixture fixture;
  auto root = fixture.MakeRoot(false);
  auto bad = PlanProvision(*root, {}, NodePoolDeletion{"ray-tpu", "Bad_Pool"});
  REQUIRE_FALSE(bad);
  CHECK(core::IsUsageError(bad.error()));
  CHECK(bad.error().message.find("NAME") != std::string::npos);

  auto plan = PlanProvision(*root, {}, NodePoolDeletion{"ray-tpu", "tpu"});
  REQUIRE(plan);
  CHECK(plan->question == "Delete node pool tpu of cluster ray-tpu?");
  auto bucket = PlanProvision(*root, {}, BucketDeletion{"gs://ckpt", true});
  REQUIRE(bucket);
  CHECK(bucket->question == "Delete bucket gs://ckpt and every object in it?");
  CHECK(fixture.transport.requests().empty());
}

TEST_CASE("provision: a create's flags are checked before the settings are read") {
  Fixture fixture;
  auto root = fixture.MakeRoot(false);
  auto plan = PlanProvision(*root, {}, BucketCreateRequest{"gs://Not A Bucket", "", "", false});
  REQUIRE_FALSE(plan);
  CHECK(core::IsUsageError(plan.error()));
  CHECK(fixture.settings_reads == 0);
  auto create = PlanProvision(*root, {}, BucketCreateRequest{"gs://ckpt", "us-east5", "", true});
  REQUIRE(create);
  CHECK(create->question.empty());
  CHECK(fixture.settings_reads == 1);
}

TEST_CASE("provision: --dry-run plans the requests under the run given and sends none") {
  Fixture fixture;
  auto root = fixture.MakeRoot(true);
  ProvisionRunFlags flags;
  flags.run_id = "ckpt-run";
  auto plan = PlanProvision(*root, flags, BucketDeletion{"ckpt", false});
  REQUIRE(plan);
  auto result = Provision(*root, flags, *plan);
  REQUIRE(result);
  CHECK(result->dry_run);
  CHECK(result->run_id == "ckpt-run");
  REQUIRE(result->planned.size() == 1);
  CHECK(result->planned[0].method == "DELETE");
  CHECK(result->planned[0].url.find("/b/ckpt") != std::string::npos);
  CHECK(fixture.transport.requests().empty());

  flags.run_id = "Not a run";
  auto refused = Provision(*root, flags, *plan);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("--run") != std::string::npos);
}

TEST_CASE("provision: a failure names the run whose ledger holds what exists; --timeout is checked first") {
  Fixture fixture;
  auto root = fixture.MakeRoot(false);
  ProvisionRunFlags flags;
  flags.run_id = "ckpt-run";
  flags.state_dir = (fixture.dir / "state").string();
  auto plan = PlanProvision(*root, flags, BucketDeletion{"ckpt", false});
  REQUIRE(plan);
  flags.timeout = "soon";
  auto bad_timeout = Provision(*root, flags, *plan);
  REQUIRE_FALSE(bad_timeout);
  CHECK(bad_timeout.error().message.find("--timeout") != std::string::npos);
  CHECK(fixture.transport.requests().empty());

  flags.timeout = "";
  fixture.transport.Otherwise(http::Response{403, {}, R"({"error":{"code":403,"message":"no"}})"});
  auto failed = Provision(*root, flags, *plan);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message.find("tputrain runs show --run ckpt-run") != std::string::npos);
  CHECK_FALSE(fixture.transport.requests().empty());
}

}  // namespace
}  // namespace tputrain::workflow
