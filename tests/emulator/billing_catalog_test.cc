#include <catch2/catch.hpp>

#include "emulator_test_util.h"
#include "tputrain/catalog/prices.h"
#include "tputrain/emulator/billing_catalog.h"

namespace tputrain::emulator {
namespace {

using nlohmann::json;
using testing::Driver;

// The unit price of the first SKU whose description is `description`.
std::optional<double> PriceOf(const json& skus, const std::string& description) {
  for (const auto& sku : skus) {
    if (sku["description"] != description) continue;
    const json& money = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"];
    return std::stod(money["units"].get<std::string>()) + money["nanos"].get<int>() * 1e-9;
  }
  return std::nullopt;
}

json AllSkus(Driver& driver, const std::string& service, int page_size, int* pages) {
  json skus = json::array();
  std::string token;
  *pages = 0;
  do {
    std::string path = "/v1/services/" + service + "/skus?currencyCode=USD&pageSize=" + std::to_string(page_size);
    if (!token.empty()) path += "&pageToken=" + token;
    auto reply = driver.Send("GET", path);
    REQUIRE(reply.status == 200);
    for (const auto& sku : reply.body["skus"]) skus.push_back(sku);
    token = reply.body["nextPageToken"].get<std::string>();
    ++*pages;
  } while (!token.empty());
  return skus;
}

TEST_CASE("billing catalog: services, and TPU SKUs paged, priced as --tpu-price sets them") {
  EmulatorConfig config;
  config.catalog_prices = {ParseCatalogPrice("v6e:us-east5:on-demand=3.15").value(),
                           ParseCatalogPrice("v5p:asia-east9:spot=0.5").value()};
  Driver driver(config);
  auto services = driver.Send("GET", "/v1/services");
  REQUIRE(services.status == 200);
  bool compute = false, tpu = false;
  for (const auto& service : services.body["services"]) {
    compute = compute || (service["serviceId"] == "6F81-5844-456A" && service["displayName"] == "Compute Engine");
    tpu = tpu || (service["serviceId"] == "E000-3F24-B8AA" && service["displayName"] == "Cloud TPU");
  }
  CHECK(compute);
  CHECK(tpu);

  int pages = 0;
  const json skus = AllSkus(driver, "6F81-5844-456A", 3, &pages);
  CHECK(pages == static_cast<int>((skus.size() + 2) / 3));
  CHECK(pages > 2);
  // The defaults are tputrain's built-in table (generated, dated); what --tpu-price sets replaces them.
  const auto& builtin = catalog::BuiltinPrices();
  const auto default_on_demand = builtin.PerChipHour("v6e", "us-east5", catalog::PriceKind::kOnDemand);
  const auto default_spot = builtin.PerChipHour("v6e", "us-east5", catalog::PriceKind::kSpot);
  REQUIRE(default_on_demand);
  REQUIRE(default_spot);
  REQUIRE(*default_on_demand != Approx(3.15));
  CHECK(PriceOf(skus, "TpuV6e chip-hour running in us-east5") == Approx(3.15));
  CHECK(PriceOf(skus, "Preemptible TpuV6e chip-hour running in us-east5") == Approx(*default_spot));
  CHECK(PriceOf(skus, "Preemptible TpuV5p chip-hour running in asia-east9") == Approx(0.5));  // added
  for (const auto& sku : skus) {
    CHECK(sku["category"]["serviceDisplayName"] == "Compute Engine");
    CHECK(sku["description"].get<std::string>().find("Tpu-v4") == std::string::npos);
  }
  // v4 is Cloud TPU's, per 8 TensorCores: 4 chips.
  const json tpu_skus = AllSkus(driver, "E000-3F24-B8AA", 5000, &pages);
  CHECK(pages == 1);
  const auto v4 = builtin.PerChipHour("v4", "us-central2", catalog::PriceKind::kOnDemand);
  REQUIRE(v4);
  CHECK(PriceOf(tpu_skus, "Tpu-v4 Pod chip-hour running in us-central2") == Approx(*v4 * 4));
}

TEST_CASE("billing catalog: an API key in ?key= or x-goog-api-key stands for a token here only") {
  Driver driver;
  auto keyed = driver.Send("GET", "/v1/services?key=AIzaSyTestKey", nullptr, false);
  CHECK(keyed.status == 200);
  auto invalid = driver.Send("GET", "/v1/services?key=not-a-key", nullptr, false);
  CHECK(invalid.status == 400);
  CHECK(invalid.body["error"]["details"][0]["reason"] == "API_KEY_INVALID");
  auto elsewhere = driver.Send("GET", "/v2/projects/p/locations/us-east5-a/nodes?key=AIzaSyTestKey", nullptr, false);
  CHECK(elsewhere.status == 401);
  auto none = driver.Send("GET", "/v1/services", nullptr, false);
  CHECK(none.status == 401);
}

TEST_CASE("billing catalog: a page token it did not give, a bad page size, another currency: 400") {
  Driver driver;
  CHECK(driver.Send("GET", "/v1/services/6F81-5844-456A/skus?pageToken=zz").status == 400);
  CHECK(driver.Send("GET", "/v1/services/6F81-5844-456A/skus?pageSize=-1").status == 400);
  CHECK(driver.Send("GET", "/v1/services/6F81-5844-456A/skus?currencyCode=EUR").status == 400);
  CHECK(driver.Send("GET", "/v1/services/0000-0000-0000/skus").status == 404);
}

TEST_CASE("--tpu-price: one usage line naming the flag for each malformed value") {
  for (const char* bad : {"v6e:us-east5:spot", "v6e:us-east5=1", "v9:us-east5:spot=1", "v6e:mars:spot=1",
                          "v6e:us-east5:cheap=1", "v6e:us-east5:spot=-1", "v6e:us-east5:spot=abc"}) {
    auto parsed = ParseCatalogPrice(bad);
    REQUIRE_FALSE(parsed);
    CHECK(core::IsUsageError(parsed.error()));
    CHECK_THAT(parsed.error().message, Catch::StartsWith("--tpu-price: "));
  }
  auto good = ParseCatalogPrice("v4:us-central2:commit-3y=1.5");
  REQUIRE(good);
  CHECK(good->usd_per_chip_hour == 1.5);
}

}  // namespace
}  // namespace tputrain::emulator
