#include <catch2/catch.hpp>

#include <cstdlib>

#include "tputrain/core/env.h"

TEST_CASE("an empty variable reads as unset, as gcloud reads CLOUDSDK_* variables") {
  tputrain::core::Env env({{"A", "1"}, {"EMPTY", ""}});
  CHECK(env.Get("A") == "1");
  CHECK_FALSE(env.Get("EMPTY").has_value());
  CHECK_FALSE(env.Get("MISSING").has_value());
  CHECK(env.GetOr("MISSING", "fallback") == "fallback");
}

TEST_CASE("the process environment is snapshotted once") {
  setenv("TPUTRAIN_ENV_TEST", "snap", 1);
  auto env = tputrain::core::Env::FromProcess();
  unsetenv("TPUTRAIN_ENV_TEST");
  CHECK(env.Get("TPUTRAIN_ENV_TEST") == "snap");
  CHECK_FALSE(env.Home().empty());
}
