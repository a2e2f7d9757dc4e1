#include <catch2/catch.hpp>

#include "tpu_vm_exec.h"

namespace tputrain::workflow {
namespace {

TEST_CASE("--worker: all, or distinct worker numbers below the slice's hosts") {
  CHECK(*ParseWorkers("--worker", "all", 4) == std::vector<int>{0, 1, 2, 3});
  CHECK(*ParseWorkers("--worker", "2,0,2", 4) == std::vector<int>{2, 0});
  for (const char* bad : {"4", "-1", "", "0,,1", "one", "0,1,"}) {
    INFO(bad);
    auto parsed = ParseWorkers("--worker", bad, 4);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().message.rfind("--worker: expected all, or worker numbers 0 to 3", 0) == 0);
  }
}

TEST_CASE("tpu-vm exec's job: a driver pinning one task per chosen host, by its address, the command after it") {
  auto request = TpuVmExecRequest({"10.0.0.2", "10.0.0.3"}, {1}, {"echo", "it's"});
  REQUIRE(request);
  CHECK(request->entrypoint.rfind("python -c '", 0) == 0);
  CHECK(request->entrypoint.find("NodeAffinitySchedulingStrategy") != std::string::npos);
  // The hosts map and the command, shell-quoted after the script.
  CHECK(request->entrypoint.find(R"( '{"1":"10.0.0.3"}' echo 'it'"'"'s')") != std::string::npos);
  CHECK_FALSE(TpuVmExecRequest({"10.0.0.2"}, {1}, {"true"}));
  CHECK_FALSE(TpuVmExecRequest({"10.0.0.2"}, {0}, {}));
}

}  // namespace
}  // namespace tputrain::workflow
