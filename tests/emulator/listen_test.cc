// `tputrain emulator start` owns its port: a second emulator told the same port is refused, so
// the kernel never splits connections between two states (SO_REUSEPORT would let it).
#include <catch2/catch.hpp>

#include "emulator/emulator_process.h"

namespace tputrain::emulator::testing {
namespace {

TEST_CASE("a second emulator on a port one already listens on is refused in one line, exit 2") {
  EmulatorProcess first;
  REQUIRE(first.ready());
  auto second = tputrain::testing::RunProcess(
      {{tputrain::testing::TputrainBinary(), "emulator", "start", "--port", std::to_string(first.port())}},
      std::chrono::seconds(20));
  INFO(second.err);
  CHECK(second.exit_code == 2);
  CHECK(second.err == "ERROR: --port: cannot listen on 127.0.0.1:" + std::to_string(first.port()) + " (in use?)\n");
  CHECK(second.out.empty());
  // The first still answers every connection.
  for (int i = 0; i < 8; ++i) CHECK(first.Send("GET", "/_emulator/state").status == 200);
  CHECK(first.running());
}

}  // namespace
}  // namespace tputrain::emulator::testing
