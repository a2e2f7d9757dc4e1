// A Ray head with token authentication (RAY_AUTH_MODE=token, Ray >= 2.52): the token travels
// in X-Ray-Authorization, on the REST calls and on the log tail's upgrade alike.
#include <catch2/catch.hpp>

#include "ray/ray_head.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

constexpr const char* kToken = "tputrain-test-token-0123456789abcdefghijklmnop";

}  // namespace

TEST_CASE("token-auth dashboard: no token exits 4, a wrong one 1, the right one submits and follows", "[integration]") {
  RayHead head(RayHead::Options{.env = {{"RAY_AUTH_MODE", "token"}, {"RAY_AUTH_TOKEN", kToken}}});
  auto run = [&](std::optional<std::string> token, std::vector<std::string> args) {
    args.insert(args.begin(), TputrainBinary());
    auto env = head.CliEnv();
    env["RAY_ADDRESS"] = head.address();
    env["RAY_AUTH_MODE"] = std::nullopt;
    env["RAY_AUTH_TOKEN"] = token;
    return RunProcess(ProcessOptions{args, env, "", ""}, std::chrono::seconds(180));
  };
  auto missing = run(std::nullopt, {"job", "list"});
  CHECK(missing.exit_code == 4);
  CHECK(missing.err.find("Missing authentication token") != std::string::npos);
  CHECK(missing.err.find("RAY_AUTH_TOKEN") != std::string::npos);

  auto wrong = run("not-the-token", {"job", "list"});
  CHECK(wrong.exit_code == 1);
  CHECK(wrong.err.find("Invalid authentication token") != std::string::npos);

  auto submitted = run(kToken, {"job", "submit", "--", "echo", "authenticated job"});
  INFO(submitted.err);
  CHECK(submitted.exit_code == 0);
  CHECK(submitted.out.find("authenticated job\n") != std::string::npos);
  CHECK(submitted.out.find(kToken) == std::string::npos);
  CHECK(submitted.err.find(kToken) == std::string::npos);
}

}  // namespace tputrain::testing
