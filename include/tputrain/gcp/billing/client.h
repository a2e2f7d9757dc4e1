#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// The Cloud Billing Catalog API (cloudbilling/v1): the public list prices of Google Cloud's
// services, one SKU per priced thing. Read with the caller's Google credential or an API key,
// as Google's docs allow for this API.
namespace tputrain::gcp::billing {

// The services whose SKUs hold TPU prices: Compute Engine's carry v5e, v5p and v6e, Cloud TPU's
// v2, v3 and v4. Their display names, as services.list answers them, find them.
inline constexpr const char* kComputeEngineName = "Compute Engine";
inline constexpr const char* kCloudTpuName = "Cloud TPU";

struct Service {
  std::string name;  // "services/6F81-5844-456A"
  std::string service_id;
  std::string display_name;
};

// One SKU, reduced to what pricing needs: its first pricing info's first tier.
struct Sku {
  std::string sku_id;
  std::string description;
  std::string resource_family;  // "Compute"
  std::string resource_group;   // "CPU", "RAM", "GPU", ...
  std::string usage_type;       // "OnDemand", "Preemptible", "Commit1Yr", "Commit3Yr", ...
  std::vector<std::string> service_regions;
  std::string usage_unit;            // "h"
  std::optional<double> unit_price;  // units + nanos·1e-9 of the tier starting at 0
  std::string currency;              // of unit_price
  std::string effective_time;        // RFC 3339
};

struct ClientOptions {
  std::string api_key;   // sent as x-goog-api-key; empty: the transport's credential
  int page_size = 5000;  // the API's default and largest page
};

class Client {
 public:
  Client(http::Transport& transport, std::string base_url, ClientOptions options = {});

  // Every service in the catalog, page after page.
  core::Result<std::vector<Service>> ListServices();
  // Every SKU of `service_id`, priced in `currency` (ISO 4217), page after page.
  core::Result<std::vector<Sku>> ListSkus(const std::string& service_id, const std::string& currency = "USD");

 private:
  http::Request Get(const std::string& path_and_query) const;

  http::Transport& transport_;
  std::string base_url_;
  ClientOptions options_;
};

Sku SkuFromJson(const nlohmann::json& json);

// An API key as Google issues them: printable ASCII without spaces, at most 256 characters.
// `field` names the flag or variable in the one usage line.
core::Status CheckApiKey(const std::string& field, const std::string& key);

}  // namespace tputrain::gcp::billing
