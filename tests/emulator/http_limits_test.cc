// `tputrain emulator start` over HTTP: a body larger than its path takes is refused (413) as it
// arrives, never held, whether its length is announced or chunked; a GET with a body is refused.
#include <catch2/catch.hpp>

#include "emulator/emulator_process.h"

namespace tputrain::emulator::testing {
namespace {

constexpr size_t kMiB = 1024 * 1024;
const std::string kNodes = "/v2/projects/p/locations/us-east5-a/nodes?nodeId=n";

std::string Zeros(size_t, size_t wanted) { return std::string(wanted, '0'); }

TEST_CASE("a 200 MB body is 413 before it fills the emulator's memory, announced or chunked") {
  EmulatorProcess emulator;
  REQUIRE(emulator.ready());
  const long before = emulator.PeakRssKib();
  const std::string head = "POST " + kNodes + " HTTP/1.1\r\nAuthorization: Bearer t\r\nContent-Type: application/json";
  const auto announced = RawExchange(emulator.port(), head, 200 * kMiB, Zeros);
  CHECK(announced.status == 413);
  CHECK(announced.body.find("Your client issued a request that was too large.") != std::string::npos);
  CHECK(RawExchange(emulator.port(), head, 200 * kMiB, Zeros, /*chunked=*/true).status == 413);
  // Past the largest bound (an object upload's): httplib reads it to its end and refuses it.
  const std::string upload =
      "POST /upload/storage/v1/b/bkt/o?uploadType=media&name=o HTTP/1.1\r\n"
      "Authorization: Bearer t\r\nContent-Type: application/octet-stream";
  CHECK(RawExchange(emulator.port(), upload, 300 * kMiB, Zeros).status == 413);
  // A GET has no body at Google's front end.
  CHECK(RawExchange(emulator.port(), "GET /storage/v1/b?project=p HTTP/1.1\r\nAuthorization: Bearer t", 64 * 1024,
                    Zeros, true)
            .status == 400);

  // What fits is still served: a bucket, and an 8 MiB object (uploads take more than JSON APIs).
  CHECK(emulator.Send("POST", "/storage/v1/b?project=p", R"({"name": "bkt"})").status == 200);
  CHECK(RawExchange(emulator.port(), upload, 8 * kMiB, Zeros).status == 200);
  CHECK(emulator.Send("DELETE", "/storage/v1/b/bkt/o/o").status == 204);
  const auto log = emulator.Send("GET", "/_emulator/requests");
  CHECK(log.status == 200);
  // Held whole, the 200 MB bodies took 400 MB and more (httplib's copy, then the request's).
  const long grown = emulator.PeakRssKib() - before;
  INFO("peak RSS grew by " << grown << " KiB");
  CHECK(grown < static_cast<long>(128 * 1024));
  CHECK(emulator.running());
}

// Uploads of 100 MiB were under the object bound (then 256 MiB): each was held, stored in the
// world and copied, and the emulator grew to 600 MB. The bound is 32 MiB now: past it, refused
// as the bytes arrive.
TEST_CASE("uploads past the object bound are 413 as they arrive; the emulator's memory stays small") {
  EmulatorProcess emulator;
  REQUIRE(emulator.ready());
  REQUIRE(emulator.Send("POST", "/storage/v1/b?project=p", R"({"name": "bkt"})").status == 200);
  const long before = emulator.PeakRssKib();
  const std::string upload =
      "POST /upload/storage/v1/b/bkt/o?uploadType=media&name=o HTTP/1.1\r\n"
      "Authorization: Bearer t\r\nContent-Type: application/octet-stream";
  for (int i = 0; i < 3; ++i) {
    const auto refused = RawExchange(emulator.port(), upload, 100 * kMiB, Zeros, /*chunked=*/true);
    CHECK(refused.status == 413);
  }
  CHECK(RawExchange(emulator.port(), upload, 40 * kMiB, Zeros).status == 413);
  CHECK(RawExchange(emulator.port(), upload, 31 * kMiB, Zeros).status == 200);
  const long grown = emulator.PeakRssKib() - before;
  INFO("peak RSS grew by " << grown << " KiB");
  CHECK(grown < static_cast<long>(160 * 1024));
  CHECK(emulator.running());
}

}  // namespace
}  // namespace tputrain::emulator::testing
