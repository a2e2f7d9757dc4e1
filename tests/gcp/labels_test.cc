#include <catch2/catch.hpp>

#include "tputrain/gcp/labels.h"

using tputrain::gcp::ParseKeyValues;
using tputrain::gcp::ParseLabels;
using tputrain::gcp::ParseMetadata;

TEST_CASE("KEY=VALUE items: '=' required, values may hold '=' or be empty, a key once") {
  auto parsed = ParseKeyValues("--metadata", {"a=1", "b=x=y", "c="});
  REQUIRE(parsed);
  CHECK(*parsed == std::map<std::string, std::string>{{"a", "1"}, {"b", "x=y"}, {"c", ""}});
  CHECK(ParseKeyValues("--metadata", {"noequals"}).error().message == "--metadata: expected KEY=VALUE, got 'noequals'");
  CHECK(ParseKeyValues("--metadata", {"=v"}).error().message == "--metadata: expected KEY=VALUE, got '=v'");
  CHECK(ParseKeyValues("--metadata", {"a=1", "a=2"}).error().message ==
        "--metadata: expected each KEY once, got 'a=2'");
}

TEST_CASE("labels follow Google's syntax and leave tputrain's run label to tputrain") {
  CHECK(ParseLabels("--labels", {"team=ml", "env=", "cost_center=a-1"}, {"tputrain-run"}));
  for (const char* bad : {"Team=ml", "1team=ml", "team=ML", "team=a.b", "team=a b"}) {
    auto refused = ParseLabels("--labels", {bad}, {"tputrain-run"});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message.rfind("--labels: expected label", 0) == 0);
  }
  CHECK(ParseLabels("--labels", {std::string(64, 'a') + "=x"}, {}).error().message.rfind("--labels: expected", 0) == 0);
  CHECK(ParseLabels("--labels", {"tputrain-run=x"}, {"tputrain-run"}).error().message ==
        "--labels: expected a label key other than tputrain-run (tputrain sets it itself), got 'tputrain-run=x'");
}

TEST_CASE("metadata keys are letters, digits, '-' and '_'; the refusal never prints the value") {
  CHECK(ParseMetadata("--metadata", {"startup-script=#!/bin/bash\necho hi", "enable_oslogin=TRUE"}));
  auto refused = ParseMetadata("--metadata", {"bad key=secret-value"});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("secret-value") == std::string::npos);
  CHECK(refused.error().message.rfind("--metadata: expected metadata keys", 0) == 0);
}
