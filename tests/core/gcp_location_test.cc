#include <catch2/catch.hpp>

#include "tputrain/core/gcp_location.h"

using tputrain::core::IsRegion;
using tputrain::core::IsZone;
using tputrain::core::RegionOf;

TEST_CASE("zones and regions as gcloud names them", "[unit]") {
  for (const char* zone : {"us-central1-a", "us-east5-b", "europe-west4-a", "asia-northeast1-b", "us-south1-c"}) {
    INFO(zone);
    CHECK(IsZone(zone));
    CHECK_FALSE(IsRegion(zone));
  }
  for (const char* region : {"us-central1", "us-east5", "europe-west4", "asia-northeast1"}) {
    INFO(region);
    CHECK(IsRegion(region));
    CHECK_FALSE(IsZone(region));
  }
  for (const char* neither : {"", "us", "us-central", "us-central1-", "us-central1-ab", "us-central1-A", "US-central1",
                              "us-central1-1", "-central1-a", "us--central1", "global"}) {
    INFO(neither);
    CHECK_FALSE(IsZone(neither));
    CHECK_FALSE(IsRegion(neither));
  }
}

TEST_CASE("RegionOf strips a zone's letter and leaves anything else alone", "[unit]") {
  CHECK(RegionOf("us-central1-a") == "us-central1");
  CHECK(RegionOf("europe-west4-b") == "europe-west4");
  CHECK(RegionOf("us-central1") == "us-central1");
  CHECK(RegionOf("global") == "global");
  CHECK(RegionOf("") == "");
}
