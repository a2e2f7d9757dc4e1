#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tputrain/workflow/serve.h"

namespace tputrain::workflow {
namespace {

nlohmann::json PodWaiting(const std::string& reason) {
  return {{"metadata", {{"name", "jetstream-pathways-0"}}},
          {"status",
           {{"containerStatuses",
             {{{"name", "jax-tpu"}, {"state", {{"waiting", {{"reason", reason}, {"message", "details"}}}}}}}}}}};
}

TEST_CASE("a pod that waiting will not cure is named with its container and reason") {
  CHECK(*PodProblem(PodWaiting("CrashLoopBackOff")) ==
        "pod jetstream-pathways-0 container jax-tpu: CrashLoopBackOff: details");
  CHECK(PodProblem(PodWaiting("ImagePullBackOff")));
  CHECK(PodProblem(PodWaiting("ErrImagePull")));
  CHECK_FALSE(PodProblem(PodWaiting("ContainerCreating")));  // it will start
  CHECK_FALSE(PodProblem(PodWaiting("PodInitializing")));
  const nlohmann::json oom = {{"metadata", {{"name", "p"}}},
                              {"status",
                               {{"containerStatuses",
                                 {{{"name", "jax-tpu"},
                                   {"lastState", {{"terminated", {{"reason", "OOMKilled"}}}}},
                                   {"state", {{"running", {}}}}}}}}}};
  CHECK(PodProblem(oom)->find("OOMKilled") != std::string::npos);
  CHECK_FALSE(PodProblem(nlohmann::json::object()));
}

TEST_CASE("the leader's log milestones, latest first") {
  CHECK(ServingMilestone("") == "");
  CHECK(ServingMilestone("I1124 compiling\n") == "loading");
  CHECK(ServingMilestone("... - INFO - Loaded all weights.\n") == "weights loaded");
  CHECK(ServingMilestone("Loaded all weights.\n... Driver initialized.\n") == "driver initialized");
  CHECK(ServingMilestone("Loaded all weights.\nServer up and ready to process requests on port 9000\n") == "server up");
}

TEST_CASE("served models map to their templates; load time follows size") {
  CHECK(*ServeTemplateFor("llama3.1-405b", false) == "jetstream-pathways-405b");
  CHECK(*ServeTemplateFor("llama2-70b", true) == "jetstream-pathways-disagg-70b");
  auto unknown = ServeTemplateFor("llama3-8b", false);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message.rfind("--model: llama3-8b has no serving template", 0) == 0);
  CHECK(ServeTimeout(405e9) == std::chrono::minutes(45));
  CHECK(ServeTimeout(70e9) == std::chrono::minutes(30));
  CHECK(ServeTimeout(8e9) == std::chrono::minutes(15));
}

}  // namespace
}  // namespace tputrain::workflow
