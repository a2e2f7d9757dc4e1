#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tputrain/gcp/billing/client.h"
#include "tputrain/gcp/billing/tpu_skus.h"

namespace tputrain::gcp::billing {
namespace {

using nlohmann::json;
using tputrain::testing::FakeTransport;
using tputrain::testing::JsonReply;

json SkuJson(const std::string& description, const std::string& usage_type, const std::string& region,
             const std::string& units, int nanos, const std::string& family = "Compute") {
  return {{"skuId", "ID-" + description.substr(0, 6)},
          {"description", description},
          {"category", {{"resourceFamily", family}, {"resourceGroup", "TPU"}, {"usageType", usage_type}}},
          {"serviceRegions", {region}},
          {"pricingInfo",
           {{{"effectiveTime", "2026-11-01T00:00:00Z"},
             {"pricingExpression",
              {{"usageUnit", "h"},
               {"tieredRates",
                {{{"startUsageAmount", 0},
                  {"unitPrice", {{"currencyCode", "USD"}, {"units", units}, {"nanos", nanos}}}}}}}}}}}};
}

TEST_CASE("billing client: services and SKUs page by pageToken until it is empty; the key is a header") {
  FakeTransport transport;
  transport.On("GET", "/skus",
               {JsonReply(200, json{{"skus", {SkuJson("TpuV6e a", "OnDemand", "us-east5", "2", 700000000)}},
                                    {"nextPageToken", "t2"}}
                                   .dump()),
                JsonReply(200, json{{"skus", {SkuJson("TpuV6e b", "OnDemand", "us-east1", "2", 0)}}}.dump())});
  transport.On("GET", "v1/services?",
               {JsonReply(200, R"({"services":[{"name":"services/A","serviceId":"A","displayName":"Compute Engine"}],
                                   "nextPageToken":"s2"})"),
                JsonReply(200, R"({"services":[{"name":"services/B","serviceId":"B","displayName":"Cloud TPU"}],
                                   "nextPageToken":""})")});
  Client client(transport, "https://cloudbilling.googleapis.com/", {"AIzaKEY123456789", 2});
  auto services = client.ListServices();
  REQUIRE(services);
  REQUIRE(services->size() == 2);
  CHECK(services->at(1).service_id == "B");
  CHECK(services->at(1).display_name == "Cloud TPU");
  auto skus = client.ListSkus("6F81-5844-456A");
  REQUIRE(skus);
  REQUIRE(skus->size() == 2);
  CHECK(*skus->at(0).unit_price == Approx(2.7));
  CHECK(skus->at(0).currency == "USD");
  const auto requests = transport.requests();
  REQUIRE(requests.size() == 4);
  CHECK(requests[0].url == "https://cloudbilling.googleapis.com/v1/services?pageSize=2");
  CHECK(requests[1].url == "https://cloudbilling.googleapis.com/v1/services?pageSize=2&pageToken=s2");
  CHECK(requests[2].url ==
        "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?currencyCode=USD&pageSize=2");
  CHECK(requests[3].url ==
        "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?currencyCode=USD&pageSize=2&pageToken=t2");
  for (const auto& request : requests) {
    CHECK(request.url.find("AIza") == std::string::npos);
    bool keyed = false;
    for (const auto& [name, value] : request.headers)
      keyed = keyed || (name == "x-goog-api-key" && value == "AIzaKEY123456789");
    CHECK(keyed);
  }
}

TEST_CASE("billing client: a server that repeats its page token is refused, not followed for ever") {
  FakeTransport transport;
  transport.On("GET", "v1/services", {JsonReply(200, R"({"services":[],"nextPageToken":"again"})")});
  auto services = Client(transport, "https://cloudbilling.googleapis.com/").ListServices();
  REQUIRE_FALSE(services);
  CHECK_THAT(services.error().message, Catch::Contains("do not end"));
  CHECK(transport.requests().size() == 2);
}

TEST_CASE("billing client: an error answer is the API's error, named by its method") {
  FakeTransport transport;
  transport.On(
      "GET", "v1/services",
      {JsonReply(
          403,
          R"({"error":{"code":403,"message":"Cloud Billing API has not been used","status":"PERMISSION_DENIED"}})")});
  auto services = Client(transport, "https://cloudbilling.googleapis.com/").ListServices();
  REQUIRE_FALSE(services);
  CHECK(services.error().kind == core::ErrorKind::kPermissionDenied);
  CHECK(services.error().where == "cloudbilling.services.list");
}

TEST_CASE("TPU SKUs: generation, Spot by 'Preemptible', commitments by usageType, v4 per 4 chips, no reserved") {
  std::vector<Sku> skus;
  for (const auto& item :
       {SkuJson("Reserved TpuV6e chip-hour running in us-east5", "OnDemand", "us-east5", "99", 0),
        SkuJson("TpuV6e chip-hour running in us-east5", "OnDemand", "us-east5", "2", 700000000),
        SkuJson("TpuV6e chip-hour, second SKU", "OnDemand", "us-east5", "5", 0),
        SkuJson("Preemptible TpuV6e chip-hour running in us-east5", "OnDemand", "us-east5", "1", 80000000),
        SkuJson("Commitment v1: TpuV6e in us-east5 for 1 Year", "Commit1Yr", "us-east5", "1", 890000000),
        SkuJson("TpuV5p chip-hour", "OnDemand", "us-east5", "4", 200000000),
        SkuJson("TpuV5e chip-hour", "OnDemand", "us-east5", "1", 200000000),
        SkuJson("Tpu-v4 Pod running in us-central2", "OnDemand", "us-central2", "12", 880000000),
        SkuJson("Tpu-v4 device", "OnDemand", "us-central2", "1", 0),
        SkuJson("TpuV6e storage", "OnDemand", "us-east5", "7", 0, "Storage"),
        SkuJson("N2 Instance Core running in Americas", "OnDemand", "us-east5", "0", 31611000)}) {
    skus.push_back(SkuFromJson(item));
  }
  auto prices = TpuPricesFromSkus(skus);
  auto find = [&](const std::string& generation, TpuPriceKind kind) -> std::optional<double> {
    for (const auto& price : prices) {
      if (price.generation == generation && price.kind == kind) return price.per_chip_hour;
    }
    return std::nullopt;
  };
  CHECK(find("v6e", TpuPriceKind::kOnDemand) == Approx(2.7));  // not the reserved 99, not the second 5
  CHECK(find("v6e", TpuPriceKind::kSpot) == Approx(1.08));
  CHECK(find("v6e", TpuPriceKind::kCommit1Yr) == Approx(1.89));
  CHECK_FALSE(find("v6e", TpuPriceKind::kCommit3Yr));
  CHECK(find("v5p", TpuPriceKind::kOnDemand) == Approx(4.2));
  CHECK(find("v5e", TpuPriceKind::kOnDemand) == Approx(1.2));
  CHECK(find("v4", TpuPriceKind::kOnDemand) == Approx(3.22));  // 12.88 per 8 TensorCores = 4 chips
  CHECK(prices.size() == 6);
}

TEST_CASE("TPU SKUs: a price no chip-hour has (a catalog's mistake) is no price; the next SKU's is") {
  std::vector<Sku> skus;
  for (const auto& item : {SkuJson("TpuV6e chip-hour running in us-east5", "OnDemand", "us-east5", "9000000000000", 0),
                           SkuJson("TpuV6e chip-hour, second SKU", "OnDemand", "us-east5", "2", 700000000),
                           SkuJson("TpuV5p chip-hour", "OnDemand", "us-east5", "1000", 1)}) {
    skus.push_back(SkuFromJson(item));
  }
  auto prices = TpuPricesFromSkus(skus);
  REQUIRE(prices.size() == 1);
  CHECK(prices[0].generation == "v6e");
  CHECK(prices[0].per_chip_hour == Approx(2.7));
}

TEST_CASE("billing: an API key with a space, a newline or too long is a usage error naming the field") {
  CHECK(CheckApiKey("--billing-api-key", "AIzaSyA-good_key"));
  for (const std::string& bad :
       {std::string(""), std::string("AIza key"), std::string("AIza\nkey"), std::string(300, 'k')}) {
    auto checked = CheckApiKey("--billing-api-key", bad);
    REQUIRE_FALSE(checked);
    CHECK(core::IsUsageError(checked.error()));
    CHECK_THAT(checked.error().message, Catch::StartsWith("--billing-api-key: "));
  }
}

}  // namespace
}  // namespace tputrain::gcp::billing
