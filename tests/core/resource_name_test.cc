#include "tputrain/core/resource_name.h"

#include <catch2/catch.hpp>

namespace tputrain::core {
namespace {

TEST_CASE("a resource name's segments: after a collection, the last, the location") {
  const std::string pool = "projects/p/locations/us-east5-b/clusters/ray-tpu/nodePools/tpu-0";
  CHECK(SegmentAfter(pool, "projects") == "p");
  CHECK(SegmentAfter(pool, "clusters") == "ray-tpu");
  CHECK(SegmentAfter(pool, "nodePools") == "tpu-0");
  CHECK(SegmentAfter(pool, "zones").empty());
  CHECK(SegmentAfter(pool + "/", "tpu-0").empty());  // a collection with nothing after it
  CHECK(SegmentAfter("projects/123", "projects") == "123");
  CHECK(SegmentAfter("principal://iam.googleapis.com/projects/1/ns/serve/sa/ksa", "ns") == "serve");
  // Whole segments only: "clusters" inside another segment is no collection.
  CHECK(SegmentAfter("projects/myclusters/x", "clusters").empty());
  CHECK(LastSegment(pool) == "tpu-0");
  CHECK(LastSegment("no-slash") == "no-slash");
  CHECK(LastSegment("ends/").empty());
  CHECK(LocationOfName(pool) == "us-east5-b");
  CHECK(LocationOfName("https://compute.googleapis.com/compute/v1/projects/p/zones/us-east5-a/instances/i") ==
        "us-east5-a");
  CHECK(LocationOfName("projects/p/regions/us-east5/subnetworks/s") == "us-east5");
  CHECK(LocationOfName("projects/p/global/firewalls/f") == "global");
  CHECK(LocationOfName("projects/p").empty());
  CHECK(LocationOfName("").empty());
}

}  // namespace
}  // namespace tputrain::core
