#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tputrain/core/timestamp.h"
#include "tputrain/workflow/prices.h"
#include "tputrain/workflow/spend.h"

namespace tputrain::workflow {
namespace {

using nlohmann::json;
using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;
using tputrain::testing::JsonReply;
namespace fs = std::filesystem;

constexpr char kUrl[] = "https://cloudbilling.example/";

json Sku(const std::string& description, const std::string& region, int units, int nanos) {
  return {{"skuId", "S"},
          {"description", description},
          {"category", {{"resourceFamily", "Compute"}, {"resourceGroup", "TPU"}, {"usageType", "OnDemand"}}},
          {"serviceRegions", {region}},
          {"pricingInfo",
           {{{"pricingExpression",
              {{"usageUnit", "h"},
               {"tieredRates",
                {{{"startUsageAmount", 0},
                  {"unitPrice", {{"currencyCode", "USD"}, {"units", std::to_string(units)}, {"nanos", nanos}}}}}}}}}}}};
}

void ScriptCatalog(FakeTransport& transport, int v6e_units) {
  transport.On("GET", "/skus",
               {JsonReply(200, json{{"skus",
                                     {Sku("TpuV6e chip-hour", "us-east5", v6e_units, 0),
                                      Sku("Preemptible TpuV6e chip-hour", "us-east5", 1, 80000000)}}}
                                   .dump())});
  transport.On("GET", "v1/services?", {JsonReply(200, R"({"services":[{"serviceId":"CE","displayName":"Compute Engine"},
                                               {"serviceId":"TPU","displayName":"Cloud TPU"}]})")});
}

struct TempDir {
  TempDir() {
    char name[] = "/tmp/tputrain-prices-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  fs::path path;
};

void Start(FakeClock& clock) { clock.Sleep(std::chrono::hours(24 * 365 * 56)); }  // 2026

TEST_CASE("prices: read from the catalog once, then from the cache until it is 3 days old or refreshed") {
  TempDir dir;
  FakeTransport transport;
  ScriptCatalog(transport, 3);
  FakeClock clock;
  Start(clock);
  PriceSource source{&transport, "", kUrl, "", (dir.path / "prices.json").string()};

  auto first = ReadTpuPrices(source, clock);
  REQUIRE(first);
  CHECK(first->origin == PriceOrigin::kCatalogApi);
  CHECK(first->notice.empty());
  CHECK(first->table.PerChipHour("v6e", "us-east5", catalog::PriceKind::kOnDemand) == Approx(3.0));
  CHECK(first->table.PerChipHour("v6e", "us-east5", catalog::PriceKind::kSpot) == Approx(1.08));
  CHECK(first->table.source == std::string("Cloud Billing Catalog API (") + kUrl + ")");
  const size_t calls = transport.requests().size();
  CHECK(calls == 3);  // services, then each service's SKUs

  clock.Sleep(std::chrono::hours(71));
  auto cached = ReadTpuPrices(source, clock);
  REQUIRE(cached);
  CHECK(cached->origin == PriceOrigin::kCache);
  CHECK(cached->table.as_of == first->table.as_of);
  CHECK(cached->table.PerChipHour("v6e", "us-east5", catalog::PriceKind::kOnDemand) == Approx(3.0));
  CHECK(transport.requests().size() == calls);

  source.refresh = true;
  REQUIRE(ReadTpuPrices(source, clock)->origin == PriceOrigin::kCatalogApi);
  CHECK(transport.requests().size() == 2 * calls);

  source.refresh = false;
  clock.Sleep(std::chrono::hours(73));
  REQUIRE(ReadTpuPrices(source, clock)->origin == PriceOrigin::kCatalogApi);
  CHECK(transport.requests().size() == 3 * calls);

  // A cache of another endpoint (the emulator's, say) is not this one's.
  source.billing_url = "http://127.0.0.1:1/";
  source.transport = nullptr;
  source.unavailable = "no Google credentials: none found";
  auto other = ReadTpuPrices(source, clock);
  REQUIRE(other);
  CHECK(other->origin == PriceOrigin::kBuiltin);
}

TEST_CASE("prices: an unreadable catalog means the built-in table, or a stale cache, and a notice saying so") {
  TempDir dir;
  FakeClock clock;
  Start(clock);
  FakeTransport denied;
  denied.On(
      "GET", "v1/services",
      {JsonReply(
          403,
          R"({"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}})")});
  PriceSource source{&denied, "", kUrl, "", (dir.path / "prices.json").string()};
  auto builtin = ReadTpuPrices(source, clock);
  REQUIRE(builtin);
  CHECK(builtin->origin == PriceOrigin::kBuiltin);
  CHECK(builtin->table.source == catalog::BuiltinPrices().source);
  CHECK_THAT(builtin->notice, Catch::Contains("could not be read") && Catch::Contains("does not have permission") &&
                                  Catch::Contains("built-in table of " + catalog::BuiltinPrices().as_of.substr(0, 10)));
  CHECK_FALSE(fs::exists(dir.path / "prices.json"));

  FakeTransport good;
  ScriptCatalog(good, 3);
  source.transport = &good;
  REQUIRE(ReadTpuPrices(source, clock)->origin == PriceOrigin::kCatalogApi);
  clock.Sleep(std::chrono::hours(100));
  source.transport = &denied;
  auto stale = ReadTpuPrices(source, clock);
  REQUIRE(stale);
  CHECK(stale->origin == PriceOrigin::kCache);
  CHECK(stale->table.PerChipHour("v6e", "us-east5", catalog::PriceKind::kOnDemand) == Approx(3.0));
  CHECK_THAT(stale->notice, Catch::Contains("cached on"));
}

TEST_CASE("prices: a catalog price no chip-hour has is neither shown nor cached") {
  TempDir dir;
  FakeClock clock;
  Start(clock);
  const auto path = dir.path / "prices.json";
  FakeTransport transport;
  ScriptCatalog(transport, 2'000'000'000);
  PriceSource source{&transport, "", kUrl, "", path.string()};
  auto prices = ReadTpuPrices(source, clock);
  REQUIRE(prices);
  CHECK_FALSE(prices->table.PerChipHour("v6e", "us-east5", catalog::PriceKind::kOnDemand));
  CHECK(prices->table.PerChipHour("v6e", "us-east5", catalog::PriceKind::kSpot) == Approx(1.08));
  std::ifstream cached(path);
  const std::string text((std::istreambuf_iterator<char>(cached)), std::istreambuf_iterator<char>());
  CHECK(text.find("2000000000") == std::string::npos);
}

TEST_CASE("prices: a damaged cache file is no cache") {
  TempDir dir;
  FakeClock clock;
  Start(clock);
  const auto path = dir.path / "prices.json";
  for (const std::string& text :
       {std::string("{"), std::string(100000, '['), std::string(R"({"version":1})"),
        std::string(R"({"version":1,"endpoint":"https://cloudbilling.example/","currency":"USD",
                                   "source":"s","as_of":"2026-01-01T00:00:00Z","prices":[{"kind":"free"}]})"),
        // A price no chip-hour has: not a cache tputrain wrote.
        std::string(R"({"version":1,"endpoint":"https://cloudbilling.example/","currency":"USD",
                                   "source":"s","as_of":"2026-01-01T00:00:00Z","prices":[{"generation":"v6e",
                                   "region":"us-east5","kind":"on-demand","per_chip_hour":1e15}]})")}) {
    std::ofstream(path) << text;
    FakeTransport transport;
    ScriptCatalog(transport, 5);
    PriceSource source{&transport, "", kUrl, "", path.string()};
    auto prices = ReadTpuPrices(source, clock);
    REQUIRE(prices);
    CHECK(prices->origin == PriceOrigin::kCatalogApi);
    CHECK(prices->table.PerChipHour("v6e", "us-east5", catalog::PriceKind::kOnDemand) == Approx(5.0));
  }
}

}  // namespace
}  // namespace tputrain::workflow

namespace tputrain::workflow {
namespace {

state::LedgerEntry TpuEntry(const std::string& name, std::optional<double> rate, const std::string& ready,
                            const std::string& deleted, bool owned = true) {
  state::LedgerEntry entry;
  entry.kind = state::ResourceKind::kTpuVm;
  entry.name = name;
  entry.owned = owned;
  entry.state = deleted.empty() ? state::EntryState::kCreated : state::EntryState::kDeleted;
  entry.ready_at = ready;
  entry.deleted_at = deleted;
  CostRecord cost;
  cost.capacity = catalog::CapacityMode::kSpot;
  cost.zone = "us-east5-a";
  cost.chips = 8;
  cost.per_chip_hour = rate;
  entry.details["cost"] = ToJson(cost);
  return entry;
}

TEST_CASE("spend: chips × rate × hours from ready_at to deleted_at or now; adopted ones and unpriced apart") {
  state::Ledger ledger;
  ledger.entries = {TpuEntry("gone", 1.5, "2026-11-26T00:00:00Z", "2026-11-26T02:00:00Z"),
                    TpuEntry("running", 2.0, "2026-11-26T02:30:00Z", ""),
                    TpuEntry("adopted", 9.0, "2026-11-26T00:00:00Z", "", false),
                    TpuEntry("unpriced", std::nullopt, "2026-11-26T00:00:00Z", ""), TpuEntry("not-ready", 3.0, "", "")};
  ledger.entries.back().state = state::EntryState::kCreating;
  state::LedgerEntry bucket;
  bucket.kind = state::ResourceKind::kBucket;
  bucket.name = "b";
  ledger.entries.push_back(bucket);
  const auto now = *core::ParseTimestamp("2026-11-26T03:00:00Z");
  auto spend = SpendOf(ledger, now);
  REQUIRE(spend.resources.size() == 4);  // not the adopted VM, not the bucket
  CHECK(spend.spent == Approx(8 * 1.5 * 2 + 8 * 2.0 * 0.5));
  CHECK(spend.per_hour_now == Approx(8 * 2.0));  // the running one; one not yet READY bills nothing
  CHECK_FALSE(spend.complete);
  CHECK_THAT(SpendLine(spend), Catch::Contains("$32.00 so far") && Catch::Contains("without a known price"));
}

TEST_CASE("spend: a preempted Spot VM bills until tputrain saw it preempted, then nothing, though it still exists") {
  state::Ledger ledger;
  ledger.entries = {TpuEntry("preempted", 1.5, "2026-11-26T00:00:00Z", "")};
  ledger.entries[0].state = state::EntryState::kPreempted;
  ledger.entries[0].preempted_at = "2026-11-26T01:00:00Z";
  auto spend = SpendOf(ledger, *core::ParseTimestamp("2026-11-26T05:00:00Z"));
  REQUIRE(spend.resources.size() == 1);
  CHECK(spend.resources[0].hours == Approx(1.0));
  CHECK(spend.spent == Approx(8 * 1.5));
  CHECK(spend.per_hour_now == Approx(0.0));
  // Deleted later: the billed interval still ends at the preemption.
  ledger.entries[0].state = state::EntryState::kDeleted;
  ledger.entries[0].deleted_at = "2026-11-26T04:00:00Z";
  CHECK(SpendOf(ledger, *core::ParseTimestamp("2026-11-26T05:00:00Z")).spent == Approx(8 * 1.5));
}

TEST_CASE("spend: a cluster the run made adds GKE's flat fee for the hours it ran; an adopted one does not") {
  state::Ledger ledger;
  ledger.entries = {TpuEntry("vm", 1.5, "2026-11-26T00:00:00Z", "2026-11-26T02:00:00Z")};
  state::LedgerEntry cluster;
  cluster.kind = state::ResourceKind::kCluster;
  cluster.name = "projects/p/locations/us-east5/clusters/c";
  cluster.owned = true;
  cluster.state = state::EntryState::kCreated;
  cluster.ready_at = "2026-11-26T00:00:00Z";
  ledger.entries.push_back(cluster);
  cluster.name = "projects/p/locations/us-east5/clusters/shared";
  cluster.owned = false;
  ledger.entries.push_back(cluster);
  auto spend = SpendOf(ledger, *core::ParseTimestamp("2026-11-26T04:00:00Z"));
  REQUIRE(spend.resources.size() == 2);
  CHECK(spend.resources[1].cluster_fee);
  CHECK(spend.cluster_fees == Approx(4 * catalog::kGkeClusterFee.per_hour));
  CHECK(spend.spent == Approx(8 * 1.5 * 2 + 4 * 0.10));
  CHECK(spend.per_hour_now == Approx(0.10));
  CHECK_THAT(SpendLine(spend), Catch::Contains("GKE's cluster fee, $0.1000/h"));
  CHECK_THAT(TotalLine("r", spend), Catch::StartsWith("run r: spend $24.40"));
  CHECK(ToJson(spend)["resources"][1]["cost"]["cluster_fee_per_hour"] == Approx(0.10));
}

TEST_CASE("spend: flex-start is priced at on-demand and said to be an upper bound") {
  CHECK(catalog::BilledAs(catalog::CapacityMode::kFlexStart) == catalog::PriceKind::kOnDemand);
  CHECK(catalog::ParseCapacityMode("flex-start") == catalog::CapacityMode::kFlexStart);
  state::Ledger ledger;
  ledger.entries = {TpuEntry("pool", 2.7, "2026-11-26T00:00:00Z", "")};
  auto cost = CostRecordFromJson(ledger.entries[0].details);
  cost->capacity = catalog::CapacityMode::kFlexStart;
  ledger.entries[0].details["cost"] = ToJson(*cost);
  auto spend = SpendOf(ledger, *core::ParseTimestamp("2026-11-26T01:00:00Z"));
  CHECK(spend.upper_bound);
  CHECK(ToJson(spend)["upper_bound"] == true);
  CHECK_THAT(SpendLine(spend), Catch::Contains("an upper bound"));
  CHECK_THAT(TotalLine("r", spend), Catch::EndsWith("at most"));
  CHECK(ToJson(spend)["resources"][0]["cost"]["capacity"] == "flex-start");
}

}  // namespace
}  // namespace tputrain::workflow
