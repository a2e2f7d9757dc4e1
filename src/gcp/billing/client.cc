#include "tputrain/gcp/billing/client.h"

#include "api_call.h"
#include "tputrain/core/json_fields.h"

namespace tputrain::gcp::billing {
namespace {

using nlohmann::json;

const json& ObjectAt(const json& object, const char* key) {
  static const json kEmpty = json::object();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

const json& ArrayAt(const json& object, const char* key) {
  static const json kEmpty = json::array();
  if (!object.is_object()) return kEmpty;
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

// google.type.Money: units is an int64 as a string, nanos an int32 of the same sign.
std::optional<double> MoneyAmount(const json& money) {
  if (!money.is_object()) return std::nullopt;
  double amount = 0;
  if (auto units = money.find("units"); units != money.end()) {
    if (units->is_string()) {
      const std::string text = units->get<std::string>();
      char* end = nullptr;
      const long long value = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
      amount = static_cast<double>(value);
    } else if (units->is_number_integer()) {
      amount = static_cast<double>(units->get<long long>());
    } else {
      return std::nullopt;
    }
  }
  if (auto nanos = money.find("nanos"); nanos != money.end()) {
    if (!nanos->is_number_integer()) return std::nullopt;
    amount += static_cast<double>(nanos->get<long long>()) * 1e-9;
  }
  return amount;
}

// A catalog is a few pages; a server that never ends its list, or repeats a page, is refused.
constexpr int kMaxPages = 1000;

core::Status CheckNextPage(const std::string& previous, const std::string& next, int pages, std::string_view where) {
  if (!next.empty() && (next == previous || pages >= kMaxPages)) {
    return core::Fail(core::Error{core::ErrorKind::kInternal,
                                  std::string(where) + ": the server's pages do not end (page token '" + next + "')", 0,
                                  "", std::string(where)});
  }
  return {};
}

std::string WithPaging(std::string url, int page_size, const std::string& page_token) {
  url += url.find('?') == std::string::npos ? '?' : '&';
  url += "pageSize=" + std::to_string(page_size);
  if (!page_token.empty()) url += "&pageToken=" + http::UrlEncode(page_token);
  return url;
}

}  // namespace

Sku SkuFromJson(const json& item) {
  Sku sku;
  sku.sku_id = core::StringAt(item, "skuId");
  sku.description = core::StringAt(item, "description");
  const json& category = ObjectAt(item, "category");
  sku.resource_family = core::StringAt(category, "resourceFamily");
  sku.resource_group = core::StringAt(category, "resourceGroup");
  sku.usage_type = core::StringAt(category, "usageType");
  for (const auto& region : ArrayAt(item, "serviceRegions")) {
    if (region.is_string()) sku.service_regions.push_back(region.get<std::string>());
  }
  const json& infos = ArrayAt(item, "pricingInfo");
  if (infos.empty() || !infos[0].is_object()) return sku;
  sku.effective_time = core::StringAt(infos[0], "effectiveTime");
  const json& expression = ObjectAt(infos[0], "pricingExpression");
  sku.usage_unit = core::StringAt(expression, "usageUnit");
  for (const auto& tier : ArrayAt(expression, "tieredRates")) {
    // The tier that starts at zero usage is the list price; later tiers are volume discounts.
    const json start = tier.is_object() ? tier.value("startUsageAmount", json(0)) : json();
    if (!start.is_number() || start.get<double>() != 0) continue;
    const json& price = ObjectAt(tier, "unitPrice");
    sku.unit_price = MoneyAmount(price);
    sku.currency = core::StringAt(price, "currencyCode");
    break;
  }
  return sku;
}

core::Status CheckApiKey(const std::string& field, const std::string& key) {
  if (key.empty() || key.size() > 256) {
    return core::Fail(core::Error::Usage(field + ": expected an API key (1 to 256 printable characters)"));
  }
  for (unsigned char c : key) {
    if (c <= 0x20 || c >= 0x7f) {
      return core::Fail(
          core::Error::Usage(field + ": expected an API key of printable ASCII characters without spaces"));
    }
  }
  return {};
}

Client::Client(http::Transport& transport, std::string base_url, ClientOptions options)
    : transport_(transport), base_url_(std::move(base_url)), options_(std::move(options)) {}

http::Request Client::Get(const std::string& path_and_query) const {
  http::Request request = JsonRequest("GET", JoinUrl(base_url_, path_and_query));
  // A header rather than ?key=: both are Google's, and a header stays out of logged URLs.
  if (!options_.api_key.empty()) request.headers.emplace_back("x-goog-api-key", options_.api_key);
  return request;
}

core::Result<std::vector<Service>> Client::ListServices() {
  std::vector<Service> services;
  std::string page_token;
  int pages = 0;
  do {
    auto body = CallJson(transport_, Get(WithPaging("v1/services", options_.page_size, page_token)),
                         "cloudbilling.services.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : ArrayAt(*body, "services")) {
      services.push_back(
          {core::StringAt(item, "name"), core::StringAt(item, "serviceId"), core::StringAt(item, "displayName")});
    }
    std::string next = core::StringAt(*body, "nextPageToken");
    if (auto ended = CheckNextPage(page_token, next, ++pages, "cloudbilling.services.list"); !ended) {
      return core::Fail(ended.error());
    }
    page_token = std::move(next);
  } while (!page_token.empty());
  return services;
}

core::Result<std::vector<Sku>> Client::ListSkus(const std::string& service_id, const std::string& currency) {
  std::vector<Sku> skus;
  std::string page_token;
  int pages = 0;
  const std::string path =
      "v1/services/" + http::PathSegment(service_id) + "/skus?currencyCode=" + http::UrlEncode(currency);
  do {
    auto body =
        CallJson(transport_, Get(WithPaging(path, options_.page_size, page_token)), "cloudbilling.services.skus.list");
    if (!body) return core::Fail(body.error());
    for (const auto& item : ArrayAt(*body, "skus")) skus.push_back(SkuFromJson(item));
    std::string next = core::StringAt(*body, "nextPageToken");
    if (auto ended = CheckNextPage(page_token, next, ++pages, "cloudbilling.services.skus.list"); !ended) {
      return core::Fail(ended.error());
    }
    page_token = std::move(next);
  } while (!page_token.empty());
  return skus;
}

}  // namespace tputrain::gcp::billing
