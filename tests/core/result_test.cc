#include <catch2/catch.hpp>

#include <string>

#include "tputrain/core/result.h"

using tputrain::core::Error;
using tputrain::core::Fail;
using tputrain::core::Result;

namespace {
Result<int> Half(int n) {
  if (n % 2 != 0) return Fail(Error::Usage("odd: " + std::to_string(n)));
  return n / 2;
}
}  // namespace

TEST_CASE("Result carries a value or an error, with std::expected's member names") {
  auto good = Half(8);
  REQUIRE(good.has_value());
  CHECK(*good == 4);
  auto bad = Half(3);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "odd: 3");
  CHECK(good.value_or(-1) == 4);
  CHECK(bad.value_or(-1) == -1);
  CHECK(Half(5).value_or(7) == 7);
}

TEST_CASE("Result<void> is ok by default and can fail") {
  tputrain::core::Status ok;
  CHECK(ok.has_value());
  tputrain::core::Status failed = Fail(Error::Internal("boom"));
  CHECK_FALSE(failed.has_value());
  CHECK(failed.error().kind == tputrain::core::ErrorKind::kInternal);
}
