// Cloud Billing Catalog API cloudbilling/v1: services.list and services.skus.list, paginated
// (pageSize, default and at most 5000; pageToken), read with an OAuth token or an API key
// (?key= or x-goog-api-key), as Google's docs allow for this API alone. The TPU SKUs are made
// from CatalogPrices: their descriptions are the emulator's own, written to the rules clients
// match real ones by (a generation marker, "Preemptible" for Spot, commitments by usageType);
// a reserved-capacity SKU and a CPU SKU stand beside them, as real catalogs hold many others.
#include "tputrain/emulator/billing_catalog.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "tputrain/catalog/prices.h"
#include "tputrain/core/gcp_location.h"
#include "tputrain/emulator/handlers.h"

namespace tputrain::emulator {
namespace {

using core::ErrorKind;
using nlohmann::json;

constexpr const char* kComputeEngineId = "6F81-5844-456A";
constexpr const char* kCloudTpuId = "E000-3F24-B8AA";
constexpr int kMaxPageSize = 5000;

// --tpu-price's names of the price kinds.
std::string KindName(catalog::PriceKind kind) {
  switch (kind) {
    case catalog::PriceKind::kOnDemand:
      return "on-demand";
    case catalog::PriceKind::kSpot:
      return "spot";
    case catalog::PriceKind::kCommit1Yr:
      return "commit-1y";
    case catalog::PriceKind::kCommit3Yr:
      return "commit-3y";
  }
  return "on-demand";
}

struct CatalogService {
  const char* id;
  const char* display_name;
};

constexpr CatalogService kCatalogServices[] = {
    {kComputeEngineId, "Compute Engine"},
    {"95FF-2EF5-5EA1", "Cloud Storage"},
    {"CCD8-9BF1-090E", "Kubernetes Engine"},
    {kCloudTpuId, "Cloud TPU"},
};

// Until a test sets its own with --tpu-price, the catalog serves tputrain's built-in table: list
// prices that scripts/generate-price-table.py wrote from a named source on a stated date, so the
// defaults are real prices and no second copy of them is kept here.
const std::vector<CatalogPrice>& DefaultPrices() {
  static const std::vector<CatalogPrice> prices = [] {
    std::vector<CatalogPrice> out;
    for (const auto& price : catalog::BuiltinPrices().prices) {
      out.push_back({price.generation, price.region, KindName(price.kind), price.per_chip_hour});
    }
    return out;
  }();
  return prices;
}

const char* Marker(const std::string& generation) {
  if (generation == "v6e") return "TpuV6e";
  if (generation == "v5p") return "TpuV5p";
  if (generation == "v5e") return "TpuV5e";
  return "Tpu-v4 Pod";
}

// A stable id shaped like Google's ("XXXX-XXXX-XXXX", hex).
std::string SkuId(const std::string& key) {
  uint64_t hash = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : key) hash = (hash ^ c) * 1099511628211ULL;
  char text[16];
  std::snprintf(text, sizeof(text), "%04X-%04X-%04X", static_cast<unsigned>(hash >> 48),
                static_cast<unsigned>((hash >> 32) & 0xffff), static_cast<unsigned>((hash >> 16) & 0xffff));
  return text;
}

json Money(double usd) {
  const double units = std::floor(usd);
  return {{"currencyCode", "USD"},
          {"units", std::to_string(static_cast<long long>(units))},
          {"nanos", static_cast<int>(std::llround((usd - units) * 1e9))}};
}

json SkuJson(const std::string& service_id, const std::string& service_name, const std::string& description,
             const std::string& group, const std::string& usage_type, const std::string& region, double unit_price,
             int64_t now_ms) {
  const std::string id = SkuId(service_id + "/" + description + "/" + usage_type);
  return {
      {"name", "services/" + service_id + "/skus/" + id},
      {"skuId", id},
      {"description", description},
      {"category",
       {{"serviceDisplayName", service_name},
        {"resourceFamily", "Compute"},
        {"resourceGroup", group},
        {"usageType", usage_type}}},
      {"serviceRegions", {region}},
      {"geoTaxonomy", {{"type", "REGIONAL"}, {"regions", {region}}}},
      {"pricingInfo",
       {{{"effectiveTime", Rfc3339(now_ms)},
         {"summary", ""},
         {"pricingExpression",
          {{"usageUnit", "h"},
           {"usageUnitDescription", "hour"},
           {"baseUnit", "s"},
           {"baseUnitDescription", "second"},
           {"baseUnitConversionFactor", 3600},
           {"displayQuantity", 1},
           {"tieredRates", {{{"startUsageAmount", 0}, {"unitPrice", Money(unit_price)}}}}}},
         {"aggregationInfo",
          {{"aggregationLevel", "ACCOUNT"}, {"aggregationInterval", "DAILY"}, {"aggregationCount", 1}}},
         {"currencyConversionRate", 1}}}},
      {"serviceProviderName", "Google"},
  };
}

json TpuSku(const CatalogPrice& price, int64_t now_ms) {
  const bool cloud_tpu = price.generation == "v4";
  const std::string service_id = cloud_tpu ? kCloudTpuId : kComputeEngineId;
  const std::string service_name = cloud_tpu ? "Cloud TPU" : "Compute Engine";
  // v4 is priced per 8 TensorCores (4 chips), the others per chip.
  const double unit_price = price.usd_per_chip_hour * (cloud_tpu ? 4 : 1);
  const std::string marker = Marker(price.generation);
  std::string description = marker + " chip-hour running in " + price.region;
  std::string usage_type = "OnDemand";
  if (price.kind == "spot") {
    description = "Preemptible " + description;
  } else if (price.kind == "commit-1y" || price.kind == "commit-3y") {
    const bool one_year = price.kind == "commit-1y";
    description = "Commitment v1: " + marker + " in " + price.region + " for " + (one_year ? "1" : "3") + " Year";
    usage_type = one_year ? "Commit1Yr" : "Commit3Yr";
  }
  return SkuJson(service_id, service_name, description, "TPU", usage_type, price.region, unit_price, now_ms);
}

json SkusOf(const Call& call, const std::string& service_id) {
  json skus = json::array();
  if (service_id == kComputeEngineId) {
    // Neither is a TPU chip's list price: a client that takes them has matched too loosely.
    skus.push_back(SkuJson(service_id, "Compute Engine", "N2 Instance Core running in Americas", "CPU", "OnDemand",
                           "us-east5", 0.031611, call.now_ms));
    skus.push_back(SkuJson(service_id, "Compute Engine", "Reserved TpuV6e chip-hour running in us-east5", "TPU",
                           "OnDemand", "us-east5", 99.0, call.now_ms));
  }
  for (const auto& price : CatalogPrices(call.config.catalog_prices)) {
    const bool cloud_tpu = price.generation == "v4";
    if (service_id == (cloud_tpu ? kCloudTpuId : kComputeEngineId)) skus.push_back(TpuSku(price, call.now_ms));
  }
  return skus;
}

// A page of `items` as pageSize and pageToken ask; the token is the offset, opaque to clients.
std::optional<ApiResponse> Page(const Call& call, const json& items, const char* key, json& reply) {
  int size = kMaxPageSize;
  if (auto text = call.request.Param("pageSize"); text && !text->empty()) {
    auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), size);
    if (ec != std::errc() || end != text->data() + text->size() || size < 0) {
      return Aip193Error(ErrorKind::kInvalidArgument, "Invalid value at 'page_size' (TYPE_INT32), \"" + *text + "\"");
    }
    if (size == 0 || size > kMaxPageSize) size = kMaxPageSize;
  }
  size_t offset = 0;
  if (auto token = call.request.Param("pageToken"); token && !token->empty()) {
    auto [end, ec] = std::from_chars(token->data(), token->data() + token->size(), offset);
    if (ec != std::errc() || end != token->data() + token->size() || offset == 0 || offset >= items.size()) {
      return Aip193Error(ErrorKind::kInvalidArgument, "Invalid page token.");
    }
  }
  json page = json::array();
  for (size_t i = offset; i < items.size() && page.size() < static_cast<size_t>(size); ++i) page.push_back(items[i]);
  reply = {{key, page}};
  const size_t next = offset + page.size();
  reply["nextPageToken"] = next < items.size() ? std::to_string(next) : "";
  return std::nullopt;
}

ApiResponse ListServices(Call& call) {
  json services = json::array();
  for (const auto& service : kCatalogServices) {
    services.push_back({{"name", std::string("services/") + service.id},
                        {"serviceId", service.id},
                        {"displayName", service.display_name},
                        {"businessEntityName", "businessEntities/GCP"}});
  }
  json reply;
  if (auto error = Page(call, services, "services", reply)) return *error;
  return JsonReply(reply);
}

ApiResponse ListSkus(Call& call) {
  const std::string& service_id = call.args[0];
  bool known = false;
  for (const auto& service : kCatalogServices) known = known || service_id == service.id;
  if (!known) return Aip193Error(ErrorKind::kNotFound, "Service not found: services/" + service_id);
  if (auto currency = call.request.Param("currencyCode"); currency && !currency->empty() && *currency != "USD") {
    return Aip193Error(ErrorKind::kInvalidArgument,
                       "The emulator's catalog is priced in USD only; currencyCode " + *currency + " is not served.");
  }
  json reply;
  if (auto error = Page(call, SkusOf(call, service_id), "skus", reply)) return *error;
  return JsonReply(reply);
}

bool IsKind(std::string_view kind) {
  return kind == "on-demand" || kind == "spot" || kind == "commit-1y" || kind == "commit-3y";
}

}  // namespace

core::Result<CatalogPrice> ParseCatalogPrice(std::string_view text) {
  auto bad = [&](const std::string& what) {
    return core::Fail(core::Error::Usage("--tpu-price: '" + std::string(text) + "': " + what));
  };
  const auto first = text.find(':');
  const auto second = first == std::string_view::npos ? first : text.find(':', first + 1);
  const auto equals = text.find('=');
  if (second == std::string_view::npos || equals == std::string_view::npos || equals < second) {
    return bad("expected GENERATION:REGION:KIND=USD, e.g. v6e:us-east5:spot=1.08");
  }
  CatalogPrice price{std::string(text.substr(0, first)), std::string(text.substr(first + 1, second - first - 1)),
                     std::string(text.substr(second + 1, equals - second - 1)), 0};
  if (price.generation != "v6e" && price.generation != "v5e" && price.generation != "v5p" && price.generation != "v4") {
    return bad("generation must be v6e, v5e, v5p or v4");
  }
  if (!core::IsRegion(price.region)) return bad("expected a region such as us-east5");
  if (!IsKind(price.kind)) return bad("kind must be on-demand, spot, commit-1y or commit-3y");
  const std::string_view number = text.substr(equals + 1);
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), price.usd_per_chip_hour);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
      !(price.usd_per_chip_hour >= 0 && price.usd_per_chip_hour < 1e6)) {
    return bad("expected a price in USD per chip-hour, such as 2.70");
  }
  return price;
}

std::vector<CatalogPrice> CatalogPrices(const std::vector<CatalogPrice>& overrides) {
  std::vector<CatalogPrice> prices = DefaultPrices();
  for (const auto& change : overrides) {
    bool replaced = false;
    for (auto& price : prices) {
      if (price.generation == change.generation && price.region == change.region && price.kind == change.kind) {
        price.usd_per_chip_hour = change.usd_per_chip_hour;
        replaced = true;
      }
    }
    if (!replaced) prices.push_back(change);
  }
  return prices;
}

std::vector<Route> BillingCatalogRoutes() {
  Route services{"GET", "^/v1/services$", "cloudbilling.services.list", ListServices};
  Route skus{"GET", "^/v1/services/([^/:]+)/skus$", "cloudbilling.services.skus.list", ListSkus};
  services.accepts_api_key = skus.accepts_api_key = true;
  return {services, skus};
}

std::optional<ApiResponse> RefuseApiKey(const ApiRequest& request, const Route& route) {
  if (!route.accepts_api_key) {
    return Aip193Error(ErrorKind::kUnauthenticated,
                       "API keys are not supported by this API. Expected OAuth2 access token or other authentication "
                       "credentials that assert a principal. See https://cloud.google.com/docs/authentication",
                       json::array({ErrorInfoDetail("CREDENTIALS_MISSING", "googleapis.com")}));
  }
  // Google's keys start "AIza"; any other is refused, as Google refuses a key it did not issue.
  auto key = ApiKeyOf(request);
  if (key && key->rfind("AIza", 0) == 0) return std::nullopt;
  return Aip193Error(ErrorKind::kInvalidArgument, "API key not valid. Please pass a valid API key.",
                     json::array({ErrorInfoDetail("API_KEY_INVALID", "googleapis.com",
                                                  {{"service", "cloudbilling.googleapis.com"}})}));
}

std::optional<std::string> ApiKeyOf(const ApiRequest& request) {
  if (auto key = request.Param("key"); key && !key->empty()) return key;
  if (auto it = request.headers.find("x-goog-api-key"); it != request.headers.end() && !it->second.empty()) {
    return it->second;
  }
  return std::nullopt;
}

}  // namespace tputrain::emulator
