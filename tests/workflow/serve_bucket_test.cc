// Which bucket serve convert and serve up use, and where it came from.
#include <catch2/catch.hpp>

#include "serve_bucket.h"

namespace tputrain::workflow {
namespace {

state::Ledger LedgerWith(std::vector<std::pair<std::string, state::EntryState>> buckets) {
  state::Ledger ledger;
  ledger.run_id = "tr-20261124-090000-ab12";
  state::LedgerEntry cluster;
  cluster.kind = state::ResourceKind::kCluster;
  cluster.name = "projects/p/locations/us-east5/clusters/jetstream";
  cluster.state = state::EntryState::kCreated;
  ledger.entries.push_back(cluster);
  for (const auto& [name, entry_state] : buckets) {
    state::LedgerEntry bucket;
    bucket.kind = state::ResourceKind::kBucket;
    bucket.name = name;
    bucket.state = entry_state;
    ledger.entries.push_back(bucket);
  }
  return ledger;
}

TEST_CASE("the bucket: --set BUCKET or --bucket, the configuration, --checkpoint, the run's one bucket") {
  const auto ledger = LedgerWith({{"run-ckpt", state::EntryState::kCreated}});
  BucketSources sources{"", {}, std::nullopt, "", "", &ledger};

  auto from_ledger = ChooseBucket(sources);
  REQUIRE(from_ledger);
  REQUIRE(*from_ledger);
  CHECK((*from_ledger)->bucket == "run-ckpt");
  CHECK((*from_ledger)->source == BucketSource::kRunLedger);
  CHECK(Describe(**from_ledger) == "bucket run-ckpt (from run tr-20261124-090000-ab12's ledger, its one bucket)");

  sources.checkpoint = "gs://weights-bucket/maxtext/llama-3.1-405b/int8";
  CHECK((*ChooseBucket(sources))->bucket == "weights-bucket");
  CHECK((*ChooseBucket(sources))->source == BucketSource::kCheckpoint);

  sources.configured = "configured-bucket";
  sources.configured_from = "env TPUTRAIN_BUCKET";
  CHECK(Describe(**ChooseBucket(sources)) == "bucket configured-bucket (from env TPUTRAIN_BUCKET)");

  sources.flag = "gs://flag-bucket";
  CHECK((*ChooseBucket(sources))->bucket == "flag-bucket");
  CHECK((*ChooseBucket(sources))->source == BucketSource::kFlag);

  sources.sets = {"META_URL=https://x", "BUCKET=flag-bucket"};
  CHECK((*ChooseBucket(sources))->source == BucketSource::kSet);
}

TEST_CASE("no bucket anywhere is no choice; a deleted bucket does not count") {
  const auto ledger = LedgerWith({{"gone", state::EntryState::kDeleted}});
  auto none = ChooseBucket({"", {}, std::nullopt, "", "", &ledger});
  REQUIRE(none);
  CHECK_FALSE(*none);
  auto no_ledger = ChooseBucket({"", {}, std::nullopt, "", "", nullptr});
  REQUIRE(no_ledger);
  CHECK_FALSE(*no_ledger);
}

TEST_CASE("a bad or ambiguous bucket is one usage line naming where it came from") {
  const auto two = LedgerWith({{"a-ckpt", state::EntryState::kCreated}, {"b-ckpt", state::EntryState::kCreating}});
  auto ambiguous = ChooseBucket({"", {}, std::nullopt, "", "", &two});
  REQUIRE_FALSE(ambiguous);
  CHECK(core::IsUsageError(ambiguous.error()));
  CHECK(ambiguous.error().message ==
        "--bucket: run tr-20261124-090000-ab12 has 2 buckets (a-ckpt, b-ckpt); say which with --bucket");
  CHECK((*ChooseBucket({"a-ckpt", {}, std::nullopt, "", "", &two}))->bucket == "a-ckpt");

  auto bad_flag = ChooseBucket({"Bad_Bucket/..", {}, std::nullopt, "", "", nullptr});
  REQUIRE_FALSE(bad_flag);
  CHECK(bad_flag.error().message.rfind("--bucket: ", 0) == 0);
  auto bad_checkpoint = ChooseBucket({"", {}, std::nullopt, "", "gs://UPPER/x", nullptr});
  REQUIRE_FALSE(bad_checkpoint);
  CHECK(bad_checkpoint.error().message.rfind("--checkpoint: ", 0) == 0);
  auto differ = ChooseBucket({"one-bucket", {"BUCKET=two-bucket"}, std::nullopt, "", "", nullptr});
  REQUIRE_FALSE(differ);
  CHECK(differ.error().message == "--bucket: one-bucket and --set BUCKET=two-bucket differ; give one");
}

}  // namespace
}  // namespace tputrain::workflow
