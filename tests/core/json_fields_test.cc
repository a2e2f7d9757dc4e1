#include "tputrain/core/json_fields.h"

#include <catch2/catch.hpp>

namespace tputrain::core {
namespace {

TEST_CASE("fields that are null, absent or of another type read as the fallback, never throw") {
  // An events.k8s.io Event read as core/v1: Go's zero times are null.
  const auto event = nlohmann::json::parse(R"({
    "metadata": {"name": "p.1", "creationTimestamp": "2026-11-22T10:00:00Z"},
    "lastTimestamp": null, "firstTimestamp": null, "count": null, "eventTime": "2026-11-22T10:00:00.250000Z",
    "series": null, "related": [], "reason": "FailedScheduling"})");
  CHECK(StringAt(event, "lastTimestamp").empty());
  CHECK(StringAt(event, "eventTime") == "2026-11-22T10:00:00.250000Z");
  CHECK(StringAt(event, "absent").empty());
  CHECK(StringAt(event, "related").empty());
  CHECK(ObjectAt(event, "series").empty());
  CHECK(ObjectAt(event, "series").is_object());
  CHECK(ArrayAt(event, "series").is_array());
  CHECK(IntAt(event, "count", 7) == 7);
  CHECK(BoolAt(event, "reason", true));
  CHECK(StringAt(ObjectAt(event, "metadata"), "name") == "p.1");
  CHECK(StringAt(nlohmann::json(), "x").empty());
  CHECK(StringAt(nlohmann::json::array({1}), "x").empty());
}

}  // namespace
}  // namespace tputrain::core
