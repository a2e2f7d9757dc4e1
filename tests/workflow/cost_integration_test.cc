// TPU prices, plan's price, spend and leaks, against `tputrain emulator start` and its Billing
// Catalog (issue 33): every number is traced to the catalog by setting it with --tpu-price.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "emulator_env.h"
#include "tputrain/catalog/prices.h"
#include "tputrain/core/timestamp.h"

namespace tputrain::workflow {
namespace {

using nlohmann::json;
using testing::EmulatorEnv;

std::optional<double> PriceIn(const json& reply, const std::string& generation, const std::string& region,
                              const std::string& kind) {
  for (const auto& row : reply["prices"]) {
    if (row["generation"] == generation && row["region"] == region && row["per_chip_hour"].contains(kind)) {
      return row["per_chip_hour"][kind].get<double>();
    }
  }
  return std::nullopt;
}

// What the built-in table (scripts/generate-price-table.py's, dated) says: the offline answer.
double Builtin(const std::string& generation, const std::string& region, catalog::PriceKind kind) {
  auto price = catalog::BuiltinPrices().PerChipHour(generation, region, kind);
  REQUIRE(price);
  return *price;
}

TEST_CASE("prices come from the emulator's catalog, are cached, and the built-in table stands in, said") {
  EmulatorEnv env({"--tpu-price", "v6e:us-east5:on-demand=3.33", "--tpu-price", "v6e:us-east5:spot=1.11", "--tpu-price",
                   "v6e:us-east5:commit-1y=1.77"});
  REQUIRE(env.ready());
  auto result = env.Tputrain({"prices", "--location", "us-east5-b", "--format", "json"}, false);
  REQUIRE(result.exit_code == 0);
  CHECK(result.err.empty());
  auto reply = json::parse(result.out);
  CHECK(reply["origin"] == "catalog-api");
  CHECK(PriceIn(reply, "v6e", "us-east5", "on_demand") == Approx(3.33));
  CHECK(PriceIn(reply, "v6e", "us-east5", "spot") == Approx(1.11));
  CHECK(PriceIn(reply, "v6e", "us-east5", "commit_1y") == Approx(1.77));
  CHECK_FALSE(PriceIn(reply, "v6e", "us-central1", "on_demand"));  // only the region asked for
  CHECK_THAT(reply["source"].get<std::string>(), Catch::Contains("Cloud Billing Catalog API"));

  // The second read is the cache's: the catalog is not asked again.
  size_t catalog_calls = 0;
  for (const auto& request : env.Requests())
    catalog_calls += request["path"].get<std::string>().rfind("/v1/services", 0) == 0;
  CHECK(catalog_calls == 3);
  result = env.Tputrain({"prices", "--all-regions", "--format", "json"}, false);
  REQUIRE(result.exit_code == 0);
  CHECK(json::parse(result.out)["origin"] == "cache");
  size_t after = 0;
  for (const auto& request : env.Requests()) after += request["path"].get<std::string>().rfind("/v1/services", 0) == 0;
  CHECK(after == catalog_calls);

  // An API key instead of the token: sent, accepted, never printed.
  tputrain::testing::ProcessOptions keyed;
  keyed.argv = {
      tputrain::testing::TputrainBinary(), "prices", "--refresh-prices", "--verbose", "--log-http", "--format", "json"};
  keyed.env = env.Environment();
  keyed.env["CLOUDSDK_AUTH_ACCESS_TOKEN_FILE"] = std::nullopt;
  keyed.env["TPUTRAIN_BILLING_API_KEY"] = "AIzaSyTheEmulatorAcceptsThis0123456789";
  result = tputrain::testing::RunProcess(keyed, std::chrono::seconds(60));
  REQUIRE(result.exit_code == 0);
  CHECK(json::parse(result.out)["origin"] == "catalog-api");
  CHECK(result.err.find("AIzaSyTheEmulator") == std::string::npos);
  CHECK_THAT(result.err, Catch::Contains("cloudbilling") || Catch::Contains("/v1/services"));

  // A key the API refuses: the built-in table, and one warning line that says so and why.
  keyed.env["TPUTRAIN_BILLING_API_KEY"] = "not-a-google-key";
  keyed.argv = {tputrain::testing::TputrainBinary(), "prices", "--refresh-prices", "--format", "json"};
  result = tputrain::testing::RunProcess(keyed, std::chrono::seconds(60));
  REQUIRE(result.exit_code == 0);
  CHECK(json::parse(result.out)["origin"] == "cache");  // the earlier read, still on disk, beats the built-in table
  CHECK_THAT(result.err, Catch::Contains("API key not valid") && Catch::Contains("cached on"));

  // No catalog at all (nothing listens there) and no cache: the built-in table, said.
  tputrain::testing::ProcessOptions offline;
  offline.argv = {tputrain::testing::TputrainBinary(), "prices", "--location", "us-east5", "--format", "json"};
  offline.env = env.Environment();
  offline.env["CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDBILLING"] =
      "http://127.0.0.1:" + std::to_string(tputrain::testing::FreeLoopbackPort()) + "/";
  result = tputrain::testing::RunProcess(offline, std::chrono::seconds(60));
  REQUIRE(result.exit_code == 0);
  reply = json::parse(result.out);
  CHECK(reply["origin"] == "built-in");
  CHECK(PriceIn(reply, "v6e", "us-east5", "on_demand") ==
        Approx(Builtin("v6e", "us-east5", catalog::PriceKind::kOnDemand)));
  CHECK(reply["source"] == catalog::BuiltinPrices().source);
  CHECK(reply["as_of"] == catalog::BuiltinPrices().as_of);
  CHECK_THAT(result.err, Catch::Contains("using the built-in table of"));
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);

  // A key with a newline: exit 2, one line naming where it came from, nothing sent.
  keyed.env["TPUTRAIN_BILLING_API_KEY"] = "AIza\nkey";
  result = tputrain::testing::RunProcess(keyed, std::chrono::seconds(60));
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::StartsWith("ERROR: TPUTRAIN_BILLING_API_KEY: "));
}

double Hours(const std::string& from, const std::string& to) {
  auto a = core::ParseTimestamp(from);
  auto b = core::ParseTimestamp(to);
  REQUIRE(a);
  REQUIRE(b);
  return std::chrono::duration<double, std::ratio<3600>>(*b - *a).count();
}

TEST_CASE("plan prices its slices from the emulator's catalog; another price there, another plan; offline, said") {
  double first_per_hour = 0;
  {
    EmulatorEnv env({"--tpu-price", "v6e:us-east5:on-demand=3.33", "--tpu-price", "v6e:us-east5:spot=1.11",
                     "--tpu-price", "v6e:us-east5:commit-1y=1.77"});
    REQUIRE(env.ready());
    auto result = env.Tputrain({"plan", "--model", "llama3-8b", "--location", "us-east5", "--format", "json"}, false);
    REQUIRE(result.exit_code == 0);
    CHECK(result.err.empty());
    auto plan = json::parse(result.out);
    REQUIRE(plan["accelerator_type"] == "v6e-16");
    const json& price = plan["price"];
    CHECK(price["currency"] == "USD");
    CHECK(price["origin"] == "catalog-api");
    const int chips = 16 * plan["slices"].get<int>();
    CHECK(price["per_chip_hour"]["on_demand"] == Approx(3.33));
    CHECK(price["per_hour"]["on_demand"] == Approx(3.33 * chips));
    CHECK(price["per_hour"]["spot"] == Approx(1.11 * chips));
    CHECK(price["per_hour"]["commit_1y"] == Approx(1.77 * chips));
    CHECK_THAT(price["source"].get<std::string>(), Catch::Contains("Cloud Billing Catalog API"));
    first_per_hour = price["per_hour"]["on_demand"].get<double>();

    auto table = env.Tputrain({"plan", "--model", "llama3-8b", "--location", "us-east5-b", "--capacity", "spot",
                               "--slices", "2", "--hours", "10"},
                              false);
    REQUIRE(table.exit_code == 0);
    CHECK_THAT(table.out, Catch::Contains("$35.52/h spot (32 chips × $1.11/chip-hour, us-east5)"));
    CHECK_THAT(table.out, Catch::Contains("on-demand $106.56/h"));
    CHECK_THAT(table.out, Catch::Contains("$355.20 for 10 h"));
    CHECK_THAT(table.out, Catch::Contains("on GKE, plus $0.1000/h for the cluster"));

    // Flex-start has no TPU price of its own: on-demand's, said to be an upper bound.
    auto flex = env.Tputrain(
        {"plan", "--model", "llama3-8b", "--location", "us-east5", "--capacity", "flex-start", "--format", "json"},
        false);
    REQUIRE(flex.exit_code == 0);
    auto flex_price = json::parse(flex.out)["price"];
    CHECK(flex_price["capacity"] == "flex-start");
    CHECK(flex_price["billed_as"] == "on_demand");
    CHECK(flex_price["upper_bound"] == true);
    CHECK(flex_price["gke_cluster_fee_per_hour"] == Approx(0.10));
    CHECK_THAT(
        env.Tputrain({"plan", "--model", "llama3-8b", "--location", "us-east5", "--capacity", "flex-start"}, false).out,
        Catch::Contains("$3.33/chip-hour") && Catch::Contains("an upper bound"));
  }
  {
    EmulatorEnv env({"--tpu-price", "v6e:us-east5:on-demand=2.50"});
    REQUIRE(env.ready());
    auto result = env.Tputrain({"plan", "--model", "llama3-8b", "--location", "us-east5", "--format", "json"}, false);
    REQUIRE(result.exit_code == 0);
    auto price = json::parse(result.out)["price"];
    CHECK(price["per_chip_hour"]["on_demand"] == Approx(2.50));
    CHECK(price["per_hour"]["on_demand"].get<double>() != Approx(first_per_hour));

    // The catalog unreachable, no cache: the built-in table, and a warning that says so.
    tputrain::testing::ProcessOptions offline;
    offline.argv = {tputrain::testing::TputrainBinary(),
                    "plan",
                    "--model",
                    "llama3-8b",
                    "--location",
                    "us-east5",
                    "--format",
                    "json"};
    offline.env = env.Environment();
    offline.env["XDG_CACHE_HOME"] = (env.dir() / "empty-cache").string();
    offline.env["CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDBILLING"] =
        "http://127.0.0.1:" + std::to_string(tputrain::testing::FreeLoopbackPort()) + "/";
    result = tputrain::testing::RunProcess(offline, std::chrono::seconds(60));
    REQUIRE(result.exit_code == 0);
    price = json::parse(result.out)["price"];
    CHECK(price["origin"] == "built-in");
    CHECK(price["per_chip_hour"]["on_demand"] == Approx(Builtin("v6e", "us-east5", catalog::PriceKind::kOnDemand)));
    CHECK(price["source"] == catalog::BuiltinPrices().source);
    CHECK_THAT(result.err, Catch::Contains("could not be read") && Catch::Contains("using the built-in table of"));

    // No location: no price, and nothing asked of the catalog.
    result = env.Tputrain({"plan", "--model", "llama3-8b", "--format", "json"}, false);
    REQUIRE(result.exit_code == 0);
    CHECK(json::parse(result.out)["price"].is_null());
  }
}

TEST_CASE("spend: runs show and cleanup give chips × rate × the hours the TPU VM was READY") {
  // Operations take 3 s: the billed interval is long enough that 1% of it is well above a clock tick.
  EmulatorEnv env({"--tpu-price", "v5p:us-east5:spot=1.50"}, "3s");
  REQUIRE(env.ready());
  auto created = env.Tputrain({"tpu-vm", "create", "spend-vm", "--zone", "us-east5-a", "--accelerator-type", "v5p-16",
                               "--spot", "--run", "spend"});
  REQUIRE(created.exit_code == 0);
  const double before = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto shown = env.Tputrain({"runs", "show", "--run", "spend", "--format", "json"});
  const double after = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  REQUIRE(shown.exit_code == 0);
  auto ledger = json::parse(shown.out);
  const json& entry = ledger["entries"][0];
  CHECK(entry["details"]["cost"]["capacity"] == "spot");
  CHECK(entry["details"]["cost"]["chips"] == 8);
  CHECK(entry["details"]["cost"]["per_chip_hour"] == Approx(1.50));
  CHECK(entry["details"]["cost"]["origin"] == "catalog-api");
  const std::string ready_at = entry["ready_at"];
  // ready_at is the create operation's end, as the API said it.
  std::string create_end;
  const json state = env.State();
  for (const auto& [name, op] : state["tpuOperations"].items()) {
    if (op["metadata"]["verb"] == "create") create_end = op["metadata"]["endTime"];
  }
  CHECK(ready_at == create_end);
  const double ready = std::chrono::duration<double>(core::ParseTimestamp(ready_at)->time_since_epoch()).count();
  const double spent = ledger["spend"]["spent"];
  CHECK(spent >= 8 * 1.50 * (before - ready) / 3600 * 0.99);
  CHECK(spent <= 8 * 1.50 * (after - ready) / 3600 * 1.01);
  CHECK(ledger["spend"]["per_hour_now"] == Approx(12.0));

  auto listed = env.Tputrain({"runs", "list", "--format", "json"});
  REQUIRE(listed.exit_code == 0);
  CHECK(json::parse(listed.out)[0]["per_hour_now"] == Approx(12.0));

  auto cleaned = env.Tputrain({"cleanup", "--run", "spend", "--yes", "--format", "json"});
  REQUIRE(cleaned.exit_code == 0);
  const json cleaned_json = json::parse(cleaned.out);
  const json& run = cleaned_json["runs"][0];
  CHECK_THAT(env.Tputrain({"cleanup", "--run", "spend", "--yes"}).out,
             Catch::Contains("nothing to delete") && Catch::Contains("run spend: TPU spend $"));
  auto final_ledger = json::parse(env.Tputrain({"runs", "show", "--run", "spend", "--format", "json"}).out);
  const std::string deleted_at = final_ledger["entries"][0]["deleted_at"];
  // Measured by the emulator: from the create operation's end to the delete operation's end.
  std::string delete_end;
  const json final_state = env.State();
  for (const auto& [name, op] : final_state["tpuOperations"].items()) {
    if (op["metadata"]["verb"] == "delete") delete_end = op["metadata"]["endTime"];
  }
  const double measured = Hours(create_end, delete_end);
  CHECK(measured > 0);
  CHECK(run["spend"]["spent"].get<double>() == Approx(8 * 1.50 * measured).epsilon(0.01));
  CHECK(run["spend"]["per_hour_now"] == Approx(0.0));
  auto table = env.Tputrain({"runs", "show", "--run", "spend"});
  CHECK_THAT(table.out, Catch::Contains("spend-vm") && Catch::Contains("$1.50") && Catch::Contains("spot"));
  CHECK_THAT(table.out, Catch::Contains("before discounts and taxes"));
  (void)deleted_at;
}

TEST_CASE("cleanup --scan prices a leaked v5p; --ttl then --scan --expired --delete-leaked deletes it alone") {
  EmulatorEnv env({"--tpu-price", "v5p:us-east5:on-demand=4.25"}, "3s");
  REQUIRE(env.ready());
  // Made under another ledger directory: this one does not know them, so they look leaked.
  const std::string elsewhere = (env.dir() / "other-ledger").string();
  auto expiring = env.Tputrain({"tpu-vm", "create", "leak-ttl", "--zone", "us-east5-a", "--accelerator-type", "v5p-8",
                                "--ttl", "1s", "--run", "gone", "--state-dir", elsewhere},
                               false);
  REQUIRE(expiring.exit_code == 0);
  auto kept = env.Tputrain({"tpu-vm", "create", "leak-kept", "--zone", "us-east5-a", "--accelerator-type", "v5p-8",
                            "--ttl", "24h", "--run", "gone", "--state-dir", elsewhere},
                           false);
  REQUIRE(kept.exit_code == 0);
  auto plain = env.Tputrain({"tpu-vm", "create", "leak-plain", "--zone", "us-east5-a", "--accelerator-type", "v5p-8",
                             "--run", "gone", "--state-dir", elsewhere},
                            false);
  REQUIRE(plain.exit_code == 0);

  // This ledger directory knows none of them (it must exist: cleanup --scan reads it).
  std::filesystem::create_directories(env.state_dir());
  auto scan = env.Tputrain({"cleanup", "--scan", "--location", "us-east5-a", "--format", "json"});
  INFO(scan.err);
  REQUIRE(scan.exit_code == 0);
  auto leaked = json::parse(scan.out);
  REQUIRE(leaked["leaked"].size() == 3);
  for (const auto& item : leaked["leaked"]) {
    CHECK(item["tpu"]["chips"] == 4);
    CHECK(item["per_hour"] == Approx(4 * 4.25));
  }
  CHECK(leaked["per_hour"] == Approx(3 * 4 * 4.25));
  auto table = env.Tputrain({"cleanup", "--scan", "--location", "us-east5-a"});
  CHECK_THAT(table.out, Catch::Contains("$17.00") && Catch::Contains("burning $51.00/h"));

  // The 1 s has passed: each create took an operation of 3 s.
  auto expired = env.Tputrain({"cleanup", "--scan", "--expired", "--location", "us-east5-a", "--format", "json"});
  REQUIRE(expired.exit_code == 0);
  auto listed = json::parse(expired.out)["leaked"];
  REQUIRE(listed.size() == 1);
  CHECK(listed[0]["name"] == "leak-ttl");
  auto deleted = env.Tputrain(
      {"cleanup", "--scan", "--expired", "--delete-leaked", "--yes", "--location", "us-east5-a", "--format", "json"});
  REQUIRE(deleted.exit_code == 0);
  const json nodes = env.State()["tpuNodes"];
  std::vector<std::string> left;
  for (const auto& [name, node] : nodes.items()) left.push_back(name.substr(name.rfind('/') + 1));
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"leak-kept", "leak-plain"});
  CHECK(nodes.begin().value()["labels"].contains("tputrain-run"));

  auto bad =
      env.Tputrain({"tpu-vm", "create", "x", "--zone", "us-east5-a", "--accelerator-type", "v5p-8", "--ttl", "soon"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::StartsWith("ERROR: --ttl: "));
}

TEST_CASE("Spot preemption: runs show --refresh records it, the spend stops, describe says so, cleanup deletes it") {
  EmulatorEnv env({"--tpu-price", "v5p:us-east5:spot=1.50"}, "1s");
  REQUIRE(env.ready());
  auto created = env.Tputrain({"tpu-vm", "create", "spot-vm", "--zone", "us-east5-a", "--accelerator-type", "v5p-8",
                               "--spot", "--run", "preempt"});
  REQUIRE(created.exit_code == 0);
  auto queued = env.Tputrain({"tpu-vm", "create", "spot-queued", "--zone", "us-east5-a", "--accelerator-type", "v5p-8",
                              "--spot", "--queued", "--run", "preempt"});
  INFO(queued.err);
  REQUIRE(queued.exit_code == 0);
  // Nothing happened yet: a refresh changes nothing and says so in JSON.
  auto calm = env.Tputrain({"runs", "show", "--run", "preempt", "--refresh", "--format", "json"});
  INFO(calm.out);
  REQUIRE(calm.exit_code == 0);
  const json calm_report = json::parse(calm.out);  // the loop below reads into it: it must outlive the loop
  REQUIRE_FALSE(calm_report.at("refreshed").empty());
  for (const auto& entry : calm_report.at("refreshed")) CHECK(entry["before"] == entry["after"]);
  CHECK(calm_report.at("spend").at("per_hour_now") == Approx(2 * 4 * 1.50));

  const std::string parent = "projects/p/locations/us-east5-a";
  REQUIRE(env.Call("POST", "/_emulator/preempt", json{{"node", parent + "/nodes/spot-vm"}}.dump()) == 200);
  // Without --refresh runs show reads only the ledger: it cannot know.
  auto offline = json::parse(env.Tputrain({"runs", "show", "--run", "preempt", "--format", "json"}).out);
  CHECK_FALSE(offline.contains("refreshed"));
  CHECK(offline["spend"]["per_hour_now"] == Approx(2 * 4 * 1.50));
  // --dry-run reads and says what it found, and writes nothing.
  auto dry = env.Tputrain({"--dry-run", "runs", "show", "--run", "preempt", "--refresh", "--format", "json"});
  INFO(dry.err);
  REQUIRE(dry.exit_code == 0);
  const json dry_json = json::parse(dry.out);
  int seen = 0;
  for (const auto& entry : dry_json["refreshed"]) seen += entry["after"] == "preempted" ? 1 : 0;
  CHECK(seen == 1);
  for (const auto& entry : dry_json["entries"]) CHECK(entry["state"] == "created");
  // The table names what changed, once, with what follows.
  auto first = env.Tputrain({"runs", "show", "--run", "preempt", "--refresh"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.out, Catch::Contains("tpu-vm " + parent +
                                        "/nodes/spot-vm: preempted (the API says PREEMPTED): "
                                        "Google reclaimed its Spot capacity"));
  CHECK_THAT(first.out, !Catch::Contains("spot-queued: preempted"));
  auto again = env.Tputrain({"runs", "show", "--run", "preempt", "--refresh"});
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.out, !Catch::Contains("Google reclaimed") && Catch::Contains("preempted"));

  // A queued resource's node goes with its queued resource, which the service SUSPENDS.
  REQUIRE(env.Call("POST", "/_emulator/preempt", json{{"node", parent + "/nodes/spot-queued"}}.dump()) == 200);
  auto refreshed = env.Tputrain({"runs", "show", "--run", "preempt", "--refresh", "--format", "json"});
  INFO(refreshed.err);
  REQUIRE(refreshed.exit_code == 0);
  const json shown = json::parse(refreshed.out);
  std::map<std::string, std::string> observed;
  for (const auto& entry : shown["refreshed"]) {
    INFO(entry.dump());
    observed[entry["kind"].get<std::string>()] += entry["observed"].get<std::string>() + " ";
    CHECK(entry["after"] == "preempted");
    CHECK(entry["before"] == (entry["name"].get<std::string>().ends_with("/spot-vm") ? "preempted" : "created"));
  }
  CHECK(observed["tpu-vm"] == "PREEMPTED ");  // the queued resource's node is its, not an entry
  CHECK(observed["queued-resource"] == "SUSPENDED ");
  for (const auto& entry : shown["entries"]) {
    if (entry["state"] == "preempted" && entry.contains("ready_at")) CHECK(entry.contains("preempted_at"));
  }
  CHECK(shown["spend"]["per_hour_now"] == Approx(0.0));
  const double spent = shown["spend"]["spent"];
  CHECK(spent > 0);
  // The spend stopped: a later look adds nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // lets the wall clock move on
  auto later = json::parse(env.Tputrain({"runs", "show", "--run", "preempt", "--format", "json"}).out);
  CHECK(later["spend"]["spent"].get<double>() == Approx(spent));

  auto described = env.Tputrain({"tpu-vm", "describe", "spot-vm", "--zone", "us-east5-a"}, false);
  INFO(described.err);
  REQUIRE(described.exit_code == 0);
  CHECK_THAT(described.out, Catch::Contains("state: \"PREEMPTED\""));
  CHECK_THAT(described.err, Catch::Contains("spot-vm was preempted: Google reclaimed its Spot capacity"));

  auto cleaned = env.Tputrain({"cleanup", "--run", "preempt", "--yes"});
  INFO(cleaned.err);
  REQUIRE(cleaned.exit_code == 0);
  const json state = env.State();
  CHECK(state["tpuNodes"].empty());
  CHECK(state["queuedResources"].empty());
}

}  // namespace
}  // namespace tputrain::workflow
