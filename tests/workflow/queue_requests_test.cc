// The queue commands' requests, checked before any call: one usage line naming the flag.
#include <catch2/catch.hpp>

#include "tputrain/workflow/queue.h"

namespace tputrain::workflow {
namespace {

std::string Refusal(const core::Status& checked) {
  REQUIRE_FALSE(checked);
  CHECK(checked.error().kind == core::ErrorKind::kInvalidArgument);
  return checked.error().message;
}

TEST_CASE("queue create: the name, --chips, --tpu-type, --create-nodepool and --timeout checked", "[queue]") {
  QueueCreateRequest request;
  request.name = "team";
  CHECK(request.Check());
  request.timeout = "";  // the default, 5m
  CHECK(request.Check());

  auto bad = request;
  bad.timeout = "soon";
  CHECK(Refusal(bad.Check()).find("--timeout") == 0);
  bad = request;
  bad.chips = 0;
  CHECK(Refusal(bad.Check()).find("--chips: expected a number of TPU chips from 1 to 1000000") == 0);
  bad = request;
  bad.tpu_types = {"v9z-1"};
  CHECK(Refusal(bad.Check()).find("--tpu-type: ") == 0);
  bad = request;
  bad.name = "Team_A";
  CHECK_FALSE(bad.Check());

  auto pool = request;
  pool.create_nodepool = "dws-pool";
  CHECK(Refusal(pool.Check()).find("--create-nodepool: needs --flex-start and one --tpu-type") == 0);
  pool.flex_start = true;
  pool.tpu_types = {"v6e-16"};
  // The pool goes into a GKE cluster: a kubeconfig's cluster cannot take one.
  CHECK(Refusal(pool.Check()).find("--create-nodepool: needs --cluster") == 0);
  pool.access.gke_cluster = "train";
  CHECK(pool.Check());
}

TEST_CASE("queue wait: --for admitted or finished, then --timeout", "[queue]") {
  QueueWaitRequest request;
  request.workload = "jobset/train";
  CHECK(request.Check());
  request.until = "finished";
  CHECK(request.Check());
  request.until = "ready";
  CHECK(Refusal(request.Check()) == "--for: expected admitted or finished, got 'ready'");
  request.until = "admitted";
  request.timeout = "2x";
  CHECK(Refusal(request.Check()).find("--timeout") == 0);
}

}  // namespace
}  // namespace tputrain::workflow
