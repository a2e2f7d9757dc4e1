#include <catch2/catch.hpp>

#include "testing/fake_transport.h"
#include "tpu_vm_multislice.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {
namespace {

RayBoot Boot() {
  RayBoot boot;
  boot.token = NewRayToken();
  return boot;
}

std::string UsageError(const RayBoot& boot) {
  auto metadata = RayMetadata(boot, {});
  if (metadata) return "(accepted)";
  CHECK(metadata.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK(metadata.error().message.find('\n') == std::string::npos);
  return metadata.error().message;
}

const char kAlreadyExists[] = R"({"error":{"code":409,"status":"ALREADY_EXISTS","message":"Already exists"}})";

struct Fixture {
  testing::FakeTransport transport;
  testing::FakeClock clock;
  core::NullReporter reporter;
  ProvisionEnv env{testing::RuntimeOn(clock, reporter),
                   transport,
                   {"http://c/", "http://t/", "http://s/storage/v1/", "http://i/", "http://r/"}};
  gcp::tpu::Client client{transport, "http://t/"};
};

// A v5p-8 node spec carrying --ray's metadata for `boot`.
gcp::tpu::NodeSpec RaySpec(const RayBoot& boot) {
  gcp::tpu::NodeSpec spec;
  spec.accelerator_type = "v5p-8";
  spec.runtime_version = "v2-alpha-tpuv5";
  auto metadata = RayMetadata(boot, {});
  REQUIRE(metadata);
  spec.metadata = *metadata;
  return spec;
}

RayBoot FirstRun() {
  RayBoot boot = Boot();
  boot.packages = {"jax[tpu]"};
  boot.start_args = "--num-cpus=4";
  boot.setup = "apt-get install -y htop\n";
  return boot;
}

}  // namespace

TEST_CASE("a re-run of create --ray with other boot values names each field, and adopts when they are the same") {
  Fixture f;
  const gcp::tpu::NodeRef ref{"p", "us-east5-a", "ray"};
  // The node as the first run made it: its create body, READY.
  auto node = nlohmann::json::parse(f.client.BuildCreateNode(ref, RaySpec(FirstRun())).body);
  node["name"] = ref.Name();
  node["state"] = "READY";
  f.transport.On("POST", "/nodes?nodeId=ray", {testing::JsonReply(409, kAlreadyExists)});
  f.transport.On("GET", "/nodes/ray", {testing::JsonReply(200, node.dump())});
  f.transport.On("POST", ":getGuestAttributes",
                 {testing::JsonReply(200, R"({"guestAttributes":[{"workerId":"0","queryPath":"tputrain/",
                   "queryValue":{"items":[{"namespace":"tputrain","key":"ray-state","value":"ready"}]}}]})")});

  RayBoot again = FirstRun();  // a new token each run: not a difference
  auto adopted = CreateRayTpuVms(f.env, {{ref, RaySpec(again)}}, 1, std::chrono::minutes(1));
  REQUIRE(adopted);
  CHECK((*adopted)[0].action == OutcomeAction::kAdopted);

  RayBoot other = FirstRun();
  other.ray_version = "2.59.0";
  other.packages = {"jax[tpu]", "optax"};
  other.start_args = "--num-cpus=8 --resources='{\"a\": 1}'";
  other.setup = "apt-get install -y htop\napt-get install -y tmux\n";
  auto refused = CreateRayTpuVms(f.env, {{ref, RaySpec(other)}}, 1, std::chrono::minutes(1));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().kind == core::ErrorKind::kAlreadyExists);
  CHECK(refused.error().message ==
        "tpu-vm ray exists with a different shape:\n"
        "  --ray-version (metadata tputrain-ray-version): want 2.59.0, have 2.60.0\n"
        "  --pip (metadata tputrain-ray-packages): want 'jax[tpu]' optax, have 'jax[tpu]'\n"
        "  --ray-start-args (metadata tputrain-ray-start-args): want --num-cpus=8 '--resources={\"a\": 1}', have "
        "--num-cpus=4\n"
        "  --setup (metadata tputrain-setup): want a script of 48 bytes, have a script of 24 bytes");
  CHECK(f.transport.Count("POST", ":getGuestAttributes") == 1);  // only the adopting run waited for Ray

  RayBoot fewer = FirstRun();
  fewer.packages.clear();
  fewer.setup = "apt-get install -y tmux\n";  // the same size, another script
  auto unset = CreateRayTpuVms(f.env, {{ref, RaySpec(fewer)}}, 1, std::chrono::minutes(1));
  REQUIRE_FALSE(unset);
  CHECK(unset.error().message.find("--pip (metadata tputrain-ray-packages): want (unset), have 'jax[tpu]'") !=
        std::string::npos);
  CHECK(unset.error().message.find("--setup (metadata tputrain-setup): want another script of 24 bytes") !=
        std::string::npos);

  gcp::tpu::NodeSpec plain = RaySpec(FirstRun());
  plain.metadata.clear();
  auto no_ray = nlohmann::json::parse(f.client.BuildCreateNode(ref, plain).body);
  CHECK(RayBootDifferences(RaySpec(FirstRun()).metadata, no_ray["metadata"]) ==
        std::vector<std::string>{"--ray: want Ray started at boot, have a node made without --ray"});
  CHECK(RayBootDifferences(plain.metadata, node["metadata"]).empty());  // a create without --ray compares none
}

TEST_CASE("a re-run of a multislice create --ray with another --pip names it") {
  Fixture f;
  const gcp::tpu::QueuedResourceRef ref{"p", "us-east5-a", "ms"};
  auto resource = nlohmann::json::parse(f.client.BuildCreateMultislice(ref, RaySpec(FirstRun()), 2).body);
  resource["name"] = ref.Name();
  resource["state"] = {{"state", "ACTIVE"}};
  f.transport.On("POST", "/queuedResources?queuedResourceId=ms", {testing::JsonReply(409, kAlreadyExists)});
  f.transport.On("GET", "/queuedResources/ms", {testing::JsonReply(200, resource.dump())});
  RayBoot other = FirstRun();
  other.packages = {"optax"};
  auto refused = CreateMultislice(f.env, {ref, RaySpec(other), 2});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "queued-resource ms exists with a different shape:\n"
        "  --pip (metadata tputrain-ray-packages): want optax, have 'jax[tpu]'");
}

TEST_CASE("pip packages and ray start words travel one a line in the metadata, each whole, nothing expanded") {
  RayBoot boot = Boot();
  boot.packages = {"*", "jax[tpu]", "ray >= 2.0"};
  boot.start_args = R"(--num-cpus=4  --resources='{"probe": 1}' "x y" a\ b '$HOME' ~/ray)";
  auto metadata = RayMetadata(boot, {});
  REQUIRE(metadata);
  CHECK(metadata->at(kRayPackagesKey) == "*\njax[tpu]\nray >= 2.0");
  CHECK(metadata->at(kRayStartArgsKey) == "--num-cpus=4\n--resources={\"probe\": 1}\nx y\na b\n$HOME\n~/ray");

  boot.start_args = R"(--temp-dir="/tmp/a \"b\"")";
  metadata = RayMetadata(boot, {});
  REQUIRE(metadata);
  CHECK(metadata->at(kRayStartArgsKey) == "--temp-dir=/tmp/a \"b\"");
}

TEST_CASE("a Ray version that is not a release, or a value with a line break, is one usage line naming the flag") {
  for (const char* good : {"2.60.0", "2.9", "2.10.0rc1", "3.0.0.dev0", "2.9.3.post1"}) {
    RayBoot boot = Boot();
    boot.ray_version = good;
    INFO(good);
    CHECK(RayMetadata(boot, {}));
  }
  RayBoot boot = Boot();
  boot.ray_version = "2.60.0 numpy";
  CHECK(UsageError(boot) ==
        "--ray-version: expected a Ray release such as 2.60.0 (numbers and dots, then optionally rcN, .postN or "
        ".devN), got '2.60.0 numpy'");
  for (const char* bad : {"", "latest", "2.60.0;reboot", "v2.60.0", "2..0", "2.60.0 "}) {
    boot.ray_version = bad;
    INFO(bad);
    CHECK(UsageError(boot).rfind("--ray-version: expected a Ray release", 0) == 0);
  }
  boot.ray_version = "2.60.0\n--index-url=http://x";  // not echoed: the error stays one line
  CHECK(UsageError(boot).find("got") == std::string::npos);

  boot = Boot();
  boot.packages = {"jax\nnumpy"};
  CHECK(UsageError(boot) == "--pip: each package must be one line, without line breaks");
  boot.packages = {""};
  CHECK(UsageError(boot) == "--pip: expected a package, got an empty value");

  boot = Boot();
  for (const auto& [args, expected] : std::vector<std::pair<std::string, std::string>>{
           {"--resources='{\"a\": 1}", "--ray-start-args: a ' quote is not closed"},
           {"--temp-dir=\"/tmp", "--ray-start-args: a \" quote is not closed"},
           {"--num-cpus=4 \\", "--ray-start-args: ends with a lone backslash"},
           {"'a\nb'", "--ray-start-args: each argument must be one line, without line breaks"},
           {"--num-cpus=4 ''", "--ray-start-args: an empty argument ('' or \"\")"}}) {
    boot.start_args = args;
    INFO(args);
    CHECK(UsageError(boot) == expected);
  }
}

}  // namespace tputrain::workflow
