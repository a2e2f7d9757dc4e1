// Why a create found no chips, from each API's answer as it comes (capacity-cost notes §A.4):
// structure first, text as the fallback, and the one line a user reads.
#include <catch2/catch.hpp>

#include "capacity_problem.h"
#include "tputrain/gcp/error_from_http.h"
#include "tputrain/gcp/operations/operation.h"

namespace tputrain::workflow::internal {
namespace {

core::Error Http(int status, const std::string& body) {
  http::Response response;
  response.status = status;
  response.body = body;
  return gcp::ErrorFromHttp(response, "test");
}

TEST_CASE("capacity answers are classified by their structure, then by their text") {
  // Cloud TPU's create operation ends with code 8 and a sentence.
  auto tpu = gcp::operations::ErrorFromRpcStatus(
      {8, "There is no more capacity in the zone \"us-east5-a\"; you can try in another zone"}, "tpu operation");
  CHECK(ClassifyCapacity(tpu) == CapacityProblem::kStockout);
  // Code 8 with words no rule knows is still a stockout: quota is refused before there is an operation.
  CHECK(ClassifyCapacity(gcp::operations::ErrorFromRpcStatus({8, "EID: 0x1"}, "op")) == CapacityProblem::kStockout);
  // GKE's pool condition says it, whatever the message.
  auto pool = core::Error::Make(core::ErrorKind::kResourceExhausted, "Not all instances running in IGM");
  pool.reason = "GCE_QUOTA_EXCEEDED";
  CHECK(ClassifyCapacity(pool) == CapacityProblem::kQuota);
  pool.reason = "GCE_STOCKOUT";
  CHECK(ClassifyCapacity(pool) == CapacityProblem::kStockout);
  // Cloud TPU's quota: a synchronous 429 with QuotaFailure.
  auto quota = Http(429, R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Quota limit
    'TPUV6EPreemptiblePerProjectPerRegionForTPUAPI' has been exceeded. Limit: 0 in region us-east5.","details":[
    {"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"subject":"x"}]}]}})");
  CHECK(ClassifyCapacity(quota) == CapacityProblem::kQuota);
  // GKE's quota pre-check: a 403 in words only.
  auto gke_quota = Http(403, R"({"error":{"code":403,"status":"PERMISSION_DENIED","message":"Insufficient regional
    quota to satisfy request: resource \"TPUS_PER_TPU_FAMILY\""}})");
  CHECK(ClassifyCapacity(gke_quota) == CapacityProblem::kQuota);
  CHECK(ClassifyCapacity(Http(403, R"({"error":{"code":403,"status":"PERMISSION_DENIED","message":"denied"}})")) ==
        CapacityProblem::kNone);
  // A reservation's shortfall: GKE's 429 and Cloud TPU's operation.
  CHECK(ClassifyCapacity(Http(429, R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Reservation does
    not have enough resources for the request"}})")) == CapacityProblem::kReservationShort);
  CHECK(ClassifyCapacity(gcp::operations::ErrorFromRpcStatus(
            {9, "Insufficient reserved capacity. Contact customer support"}, "op")) ==
        CapacityProblem::kReservationShort);
  // A create rate limit frees up within its minute.
  CHECK(ClassifyCapacity(Http(429, R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"Maximum number
    of CreateNode requests per minute"}})")) == CapacityProblem::kRateLimit);
  CHECK(ClassifyCapacity(core::Error::Make(core::ErrorKind::kInvalidArgument, "no more capacity")) ==
        CapacityProblem::kNone);
}

TEST_CASE("the explanation is one line naming place, type and mode, and the next step") {
  auto stockout = ExplainCapacity(
      gcp::operations::ErrorFromRpcStatus({8, "There is no more capacity in the zone\n\"us-east5-a\""}, "op"),
      {"TPU VM t1", "us-east5-a", "v6e-8", "spot"});
  CHECK(stockout.message ==
        "TPU VM t1 in us-east5-a (v6e-8, spot): out of capacity (stockout): There is no more capacity in the zone "
        "\"us-east5-a\"; next: try other zones (--zones Z1,Z2,...), --capacity spot or flex-start, or a reservation; "
        "--retry-until-up keeps trying");
  auto quota = core::Error::Make(core::ErrorKind::kResourceExhausted, "Quota 'TPUS_PER_TPU_FAMILY' exceeded");
  quota.http_status = 403;
  CHECK(ExplainCapacity(quota, {"node pool p", "us-east5-b", "ct6e-standard-4t 4x4", "on-demand"})
            .message.find("; next: quota is per region, so another zone of us-east5 will not help") !=
        std::string::npos);
  auto other = core::Error::Make(core::ErrorKind::kInvalidArgument, "bad");
  CHECK(ExplainCapacity(other, {"x", "z", "m", "on-demand"}).message == "bad");
}

TEST_CASE("a zone's region is before its last letter part") {
  CHECK(RegionOf("us-east5-a") == "us-east5");
  CHECK(RegionOf("us-central1-ai1a") == "us-central1");
  CHECK(RegionOf("us-east5") == "us-east5");
  CHECK(RegionOf("europe-west4") == "europe-west4");
}

}  // namespace
}  // namespace tputrain::workflow::internal
