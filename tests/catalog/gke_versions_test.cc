#include <catch2/catch.hpp>

#include "tputrain/catalog/gke_versions.h"

namespace tputrain::catalog {
namespace {

bool Below(const char* version, const char* minimum) {
  auto given = ParseGkeVersion(version);
  auto least = ParseGkeVersion(minimum);
  REQUIRE(given);
  REQUIRE(least);
  return BelowMinimum(*given, *least);
}

TEST_CASE("GKE versions compare part by part; a prefix is below only when its parts are") {
  CHECK(Below("1.32.4-gke.1415000", "1.34.0-gke.2201000"));
  CHECK(Below("1.34.0-gke.1000000", "1.34.0-gke.2201000"));
  CHECK(Below("1.33", "1.34.0-gke.2201000"));
  CHECK_FALSE(Below("1.34.0-gke.2201000", "1.34.0-gke.2201000"));
  CHECK_FALSE(Below("1.34.1-gke.3084001", "1.34.0-gke.2201000"));
  CHECK_FALSE(Below("1.35", "1.34.0-gke.2201000"));
  CHECK_FALSE(Below("1.34", "1.34.0-gke.2201000"));  // GKE resolves it; the pool's pin is checked later
  CHECK(Below("1.34.0-gke.2201000", "1.34.1-gke.3084001"));
  for (const char* text : {"", "latest", "-", "1", "1.x", "1.34.0-gke.", "1.34-gke.5", "1.2.3.4", "v1.34"}) {
    INFO(text);
    CHECK_FALSE(ParseGkeVersion(text));
  }
}

TEST_CASE("a version below tpu7x's minimum is one usage line naming the flag and the minimum") {
  const auto* tpu7x = FindGeneration("tpu7x");
  REQUIRE(tpu7x != nullptr);
  auto refused = CheckGkeVersion(*tpu7x, "1.32.4-gke.1415000", false, "--cluster-version");
  REQUIRE(!refused);
  CHECK(refused.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK(refused.error().message ==
        "--cluster-version: tpu7x needs GKE 1.34.0-gke.2201000 or later, got 1.32.4-gke.1415000");
  CHECK(CheckGkeVersion(*tpu7x, "1.34", false, "--cluster-version"));
  auto autopilot = CheckGkeVersion(*tpu7x, "1.34.0-gke.2201000", true, "--cluster-version");
  REQUIRE(!autopilot);
  CHECK(autopilot.error().message.find("Autopilot 1.34.1-gke.3084001") != std::string::npos);
  CHECK(CheckGkeVersion(*FindGeneration("v6e"), "1.30", false, "--cluster-version"));  // no minimum
}

}  // namespace
}  // namespace tputrain::catalog
