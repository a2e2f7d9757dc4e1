#include "tputrain/workflow/prices.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tputrain/core/file.h"
#include "tputrain/core/json.h"
#include "tputrain/core/timestamp.h"
#include "tputrain/gcp/billing/client.h"
#include "tputrain/gcp/billing/tpu_skus.h"

namespace tputrain::workflow {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kCacheVersion = 1;

catalog::PriceKind KindOf(gcp::billing::TpuPriceKind kind) {
  switch (kind) {
    case gcp::billing::TpuPriceKind::kOnDemand:
      return catalog::PriceKind::kOnDemand;
    case gcp::billing::TpuPriceKind::kSpot:
      return catalog::PriceKind::kSpot;
    case gcp::billing::TpuPriceKind::kCommit1Yr:
      return catalog::PriceKind::kCommit1Yr;
    case gcp::billing::TpuPriceKind::kCommit3Yr:
      return catalog::PriceKind::kCommit3Yr;
  }
  return catalog::PriceKind::kOnDemand;
}

std::optional<catalog::PriceKind> KindFromKey(const std::string& key) {
  for (auto kind : catalog::kPriceKinds) {
    if (catalog::PriceKindKey(kind) == key) return kind;
  }
  return std::nullopt;
}

json CacheJson(const catalog::PriceTable& table, const std::string& endpoint) {
  json prices = json::array();
  for (const auto& price : table.prices) {
    prices.push_back({{"generation", price.generation},
                      {"region", price.region},
                      {"kind", catalog::PriceKindKey(price.kind)},
                      {"per_chip_hour", price.per_chip_hour}});
  }
  return {{"version", kCacheVersion}, {"endpoint", endpoint}, {"currency", table.currency},
          {"source", table.source},   {"as_of", table.as_of}, {"prices", prices}};
}

// The cached table, when the file is there, whole, and read from `endpoint`; anything else is
// no cache (it is rewritten by the next read of the API).
std::optional<catalog::PriceTable> ReadCache(const std::string& path, const std::string& endpoint) {
  if (path.empty()) return std::nullopt;
  auto text = core::ReadFile(path, "", 16 * core::kMiB);
  if (!text) return std::nullopt;
  // The file is four levels deep and a few thousand values: anything far beyond is not ours.
  auto read = core::ParseJson(*text, path, {.max_bytes = 16 * core::kMiB, .max_depth = 8, .max_values = 1'000'000});
  if (!read || !read->is_object()) return std::nullopt;
  const json& parsed = *read;
  try {
    if (parsed.value("version", 0) != kCacheVersion || parsed.value("endpoint", "") != endpoint) return std::nullopt;
    catalog::PriceTable table;
    table.currency = parsed.at("currency").get<std::string>();
    table.source = parsed.at("source").get<std::string>();
    table.as_of = parsed.at("as_of").get<std::string>();
    if (!core::ParseTimestamp(table.as_of)) return std::nullopt;
    for (const auto& item : parsed.at("prices")) {
      auto kind = KindFromKey(item.at("kind").get<std::string>());
      if (!kind) return std::nullopt;
      const double per_chip_hour = item.at("per_chip_hour").get<double>();
      // A price no chip-hour has (written by hand, or by a release that did not check): not ours.
      if (!std::isfinite(per_chip_hour) || per_chip_hour < 0 || per_chip_hour > gcp::billing::kMaxChipHourPrice) {
        return std::nullopt;
      }
      table.prices.push_back(
          {item.at("generation").get<std::string>(), item.at("region").get<std::string>(), *kind, per_chip_hour});
    }
    return table;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

// Best effort: a cache that cannot be written costs a read of the API next time, nothing else.
void WriteCache(const std::string& path, const catalog::PriceTable& table, const std::string& endpoint) {
  if (path.empty()) return;
  std::error_code error;
  fs::create_directories(fs::path(path).parent_path(), error);
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << CacheJson(table, endpoint).dump(1) << "\n";
    if (!out.flush()) {
      fs::remove(temp, error);
      return;
    }
  }
  fs::rename(temp, path, error);
  if (error) fs::remove(temp, error);
}

bool Fresh(const catalog::PriceTable& table, const PriceSource& source, core::Clock& clock) {
  auto read_at = core::ParseTimestamp(table.as_of);
  if (!read_at) return false;
  const auto age = clock.WallNow() - *read_at;
  return age >= std::chrono::seconds(0) && age < source.max_age;
}

std::string DateOf(const std::string& as_of) { return as_of.substr(0, 10); }

}  // namespace

std::string_view PriceOriginName(PriceOrigin origin) {
  switch (origin) {
    case PriceOrigin::kCatalogApi:
      return "catalog-api";
    case PriceOrigin::kCache:
      return "cache";
    case PriceOrigin::kBuiltin:
      return "built-in";
  }
  return "built-in";
}

std::string DefaultPriceCachePath(const core::Env& env) {
  std::string base = env.GetOr("XDG_CACHE_HOME", "");
  if (base.empty() || base.front() != '/') base = env.Home() + "/.cache";
  return base + "/tputrain/tpu-prices.json";
}

core::Result<catalog::PriceTable> FetchTpuPrices(const PriceSource& source, core::Clock& clock) {
  if (source.transport == nullptr)
    return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, source.unavailable));
  gcp::billing::Client client(*source.transport, source.billing_url, {source.api_key, source.page_size});
  auto services = client.ListServices();
  if (!services) return core::Fail(services.error());
  std::vector<gcp::billing::Sku> skus;
  for (const char* wanted : {gcp::billing::kComputeEngineName, gcp::billing::kCloudTpuName}) {
    auto found = std::find_if(services->begin(), services->end(),
                              [&](const gcp::billing::Service& service) { return service.display_name == wanted; });
    if (found == services->end()) {
      return core::Fail(core::Error{core::ErrorKind::kNotFound,
                                    std::string("the catalog lists no service named '") + wanted + "'", 0, "",
                                    "cloudbilling.services.list"});
    }
    auto listed = client.ListSkus(found->service_id, "USD");
    if (!listed) return core::Fail(listed.error());
    skus.insert(skus.end(), listed->begin(), listed->end());
  }
  catalog::PriceTable table;
  table.currency = "USD";
  table.source = "Cloud Billing Catalog API (" + source.billing_url + ")";
  table.as_of = core::FormatTimestamp(clock.WallNow());
  for (const auto& price : gcp::billing::TpuPricesFromSkus(skus)) {
    if (price.currency != table.currency) continue;
    table.prices.push_back({price.generation, price.region, KindOf(price.kind), price.per_chip_hour});
  }
  if (table.prices.empty()) {
    return core::Fail(core::Error{core::ErrorKind::kNotFound, "the catalog's SKUs hold no TPU price", 0, "",
                                  "cloudbilling.services.skus.list"});
  }
  return table;
}

core::Result<Prices> ReadTpuPrices(const PriceSource& source, core::Clock& clock) {
  auto cached = ReadCache(source.cache_path, source.billing_url);
  if (cached && !source.refresh && Fresh(*cached, source, clock)) {
    return Prices{std::move(*cached), PriceOrigin::kCache, ""};
  }
  auto fetched = FetchTpuPrices(source, clock);
  if (fetched) {
    WriteCache(source.cache_path, *fetched, source.billing_url);
    return Prices{std::move(*fetched), PriceOrigin::kCatalogApi, ""};
  }
  if (fetched.error().kind == core::ErrorKind::kCancelled) return core::Fail(fetched.error());
  std::string why = fetched.error().message;
  if (!fetched.error().where.empty()) why = "(" + fetched.error().where + ") " + why;
  if (cached) {
    std::string notice = "prices: the Cloud Billing Catalog API could not be read: " + why + "; using the prices " +
                         "cached on " + DateOf(cached->as_of) + " (" + source.cache_path + ")";
    return Prices{std::move(*cached), PriceOrigin::kCache, std::move(notice)};
  }
  const auto& builtin = catalog::BuiltinPrices();
  std::string notice = "prices: the Cloud Billing Catalog API could not be read: " + why +
                       "; using the built-in table of " + DateOf(builtin.as_of) + " (" + builtin.source + ")";
  return Prices{builtin, PriceOrigin::kBuiltin, std::move(notice)};
}

}  // namespace tputrain::workflow
