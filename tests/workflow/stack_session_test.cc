// What `up` checks and shows around a run: --skip's names, the plan's bodies as the redactor
// shows them, the failure's hints; `down`'s file or run, one of them.
#include <catch2/catch.hpp>

#include "tputrain/core/error.h"
#include "tputrain/workflow/stack_session.h"

namespace tputrain::workflow {
namespace {

Stack TwoSteps() {
  Stack stack;
  stack.file = "stack.yaml";
  stack.name = "train";
  stack.steps.push_back({});
  stack.steps.back().id = "cluster";
  stack.steps.back().kind = StepKind::kCluster;
  stack.steps.push_back({});
  stack.steps.back().id = "nodepool/tpu";
  stack.steps.back().kind = StepKind::kNodePool;
  return stack;
}

TEST_CASE("up --skip: a step of the stack or a kind of step; anything else is a typo", "[unit]") {
  const Stack stack = TwoSteps();
  CHECK(CheckSkips(stack, {"nodepool/tpu", "cluster"}));
  // A kind this stack has no step of: one --skip serves every stack file of a CI matrix.
  CHECK(CheckSkips(stack, {"workload", "apply"}));
  auto typo = CheckSkips(stack, {"cluster", "nodepool/tpus"});
  REQUIRE_FALSE(typo);
  CHECK(core::IsUsageError(typo.error()));
  CHECK(typo.error().message == "--skip: no step nodepool/tpus in stack.yaml");
}

TEST_CASE("up --dry-run's JSON: the bodies as the redactor shows them, still JSON", "[unit]") {
  core::Redactor redactor;
  redactor.Hold("ray-token-0123456789");
  StepPlan step;
  step.id = "cluster";
  step.requests.push_back({"POST", "https://x/clusters", {}, R"({"token":"abc","label":"ray-token-0123456789"})"});
  step.requests.push_back({"POST", "https://x/plain", {}, "not json ray-token-0123456789"});
  step.requests.push_back({"GET", "https://x/read", {}, ""});
  auto json = PlanJson(TwoSteps(), {step}, redactor);
  CHECK(json["stack"] == "train");
  CHECK(json["dry_run"] == true);
  const auto& requests = json["steps"][0]["requests"];
  CHECK(requests[0]["body"] == nlohmann::json{{"token", "REDACTED"}, {"label", "REDACTED"}});
  CHECK(requests[1]["body"] == "not json REDACTED");
  CHECK_FALSE(requests[2].contains("body"));
}

TEST_CASE("up's failure says how to finish and where the ledger is", "[unit]") {
  const Stack stack = TwoSteps();
  std::vector<StepResult> results(2);
  results[0].id = "cluster";
  results[0].state = StepState::kDone;
  results[1].id = "nodepool/tpu";
  CHECK(UpOutcome(stack, results));
  results[1].state = StepState::kFailed;
  results[1].error = core::Error::Make(core::ErrorKind::kResourceExhausted, "no chips");
  auto failed = UpOutcome(stack, results);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().kind == core::ErrorKind::kResourceExhausted);
  CHECK(failed.error().message ==
        "failed: nodepool/tpu; run `tputrain up -f stack.yaml` again to finish (what is done is adopted)\n"
        "  what exists is recorded in the run ledger: tputrain runs show --run train");
}

}  // namespace
}  // namespace tputrain::workflow
