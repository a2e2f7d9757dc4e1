// Ctrl-C while following, on a terminal: tputrain offers to stop the job. Run in a pseudo-
// terminal, where ^C reaches the process as SIGINT through the line discipline, as for a person.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>

#include "ray/ray_head.h"
#include "testing/pty_process.h"
#include "testing/scoped_process.h"

namespace tputrain::testing {

TEST_CASE("Ctrl-C while following on a terminal asks, and 'y' stops the job (exit 3)", "[integration]") {
  auto& head = SharedRayHead();
  std::string id = "tty-" + std::to_string(getpid());
  PtyProcess follow({TputrainBinary(), "job", "submit", "--submission-id", id, "--address", head.address(), "--",
                     "python", "-c", "import time\nprint('started', flush=True)\ntime.sleep(300)"},
                    {{"PATH", head.bin_dir() + ":/usr/bin:/bin"}});
  REQUIRE(follow.ReadUntil("started", std::chrono::seconds(120)));
  follow.Type("\x03");
  REQUIRE(follow.ReadUntil("[y/N]", std::chrono::seconds(30)));
  follow.Type("y\n");
  INFO(follow.output());
  CHECK(follow.ReadUntil("STOPPED", std::chrono::seconds(60)));
  CHECK(follow.Wait() == 3);

  auto env = head.CliEnv();
  auto status = RunProcess(ProcessOptions{
      {TputrainBinary(), "job", "status", id, "--address", head.address(), "--format", "json"}, env, "", ""});
  CHECK(nlohmann::json::parse(status.out)["status"] == "STOPPED");
}

}  // namespace tputrain::testing
