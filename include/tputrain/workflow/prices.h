#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "tputrain/catalog/prices.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// TPU list prices for plan, spend and leaks: from the Cloud Billing Catalog API, kept on disk
// for a few days, and the built-in table when the API cannot be read — said, never silent.
namespace tputrain::workflow {

enum class PriceOrigin { kCatalogApi, kCache, kBuiltin };

// "catalog-api", "cache", "built-in": the `origin` of --format json.
std::string_view PriceOriginName(PriceOrigin origin);

struct Prices {
  catalog::PriceTable table;
  PriceOrigin origin = PriceOrigin::kBuiltin;
  // Set when the prices are not the catalog's of the last few days: why (the API's error), and
  // which table stands in. Callers print it as a warning.
  std::string notice;
};

struct PriceSource {
  // The Catalog API's transport (an API key's or Google's credential); null when there is none,
  // and `unavailable` says why ("no Google credentials: ...").
  http::Transport* transport = nullptr;
  std::string unavailable;
  std::string billing_url;  // Endpoints::cloudbilling
  std::string api_key;      // sent by the client as x-goog-api-key; empty: the transport's credential
  std::string cache_path;   // "" keeps nothing on disk
  bool refresh = false;     // --refresh-prices: read the API even when the cache is fresh
  std::chrono::hours max_age{72};
  int page_size = 5000;
};

// The cache file: $XDG_CACHE_HOME/tputrain/tpu-prices.json, else ~/.cache/tputrain/tpu-prices.json.
std::string DefaultPriceCachePath(const core::Env& env);

// A fresh cache (read from the same endpoint) as it is; else the API, written to the cache; else,
// with a notice, a stale cache or the built-in table. Fails only when cancelled.
core::Result<Prices> ReadTpuPrices(const PriceSource& source, core::Clock& clock);

class Root;

// ReadTpuPrices on the root's price source and clock, for a command: the notice, when there is
// one, is warned (redacted) through the root's reporter.
core::Result<Prices> ReadTpuPrices(Root& root);

// ReadTpuPrices(root) once, when first asked (by parallel creates too): what provisioning
// records TPU costs with (ProvisionEnv::prices). A failure is a warning and no price, never a
// failed create. The function holds what it read; the root must outlive it.
std::function<const Prices*()> TpuPricesOnFirstUse(Root& root);

// The catalog's TPU prices, read now (no cache, no stand-in): what --refresh-prices and the
// script that writes the built-in table use.
core::Result<catalog::PriceTable> FetchTpuPrices(const PriceSource& source, core::Clock& clock);

}  // namespace tputrain::workflow
