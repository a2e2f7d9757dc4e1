#include <catch2/catch.hpp>

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

}  // namespace

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
