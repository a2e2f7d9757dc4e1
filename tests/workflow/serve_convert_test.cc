// serve convert's pure parts: the converter's values per model, where the checkpoint lands (and
// that serve up reads it there), a Job's conditions, and the lines kept for a failure.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "template_values.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/render/render.h"
#include "tputrain/workflow/serve.h"
#include "tputrain/workflow/serve_convert.h"

namespace tputrain::workflow {
namespace {

const std::string kTemplates = std::string(TPUTRAIN_SOURCE_DIR) + "/templates";

std::vector<k8s::Object> RenderObjects(const std::string& name, std::vector<std::string> sets) {
  render::RenderRequest request;
  request.template_name = name;
  request.template_dirs = {kTemplates};
  request.slice_values = SliceTemplateValues;
  request.configuration = {{"BUCKET", "ckpt"}, {"PROJECT_ID", "p"}};
  request.sets = std::move(sets);
  auto rendered = render::RenderTemplate(request);
  INFO(name << ": " << (rendered ? "" : rendered.error().message));
  REQUIRE(rendered);
  std::vector<k8s::Object> objects;
  for (const auto& file : rendered->files) {
    if (!file.yaml) continue;
    auto parsed = k8s::ParseManifests(file.text, file.name);
    REQUIRE(parsed);
    objects.insert(objects.end(), parsed->begin(), parsed->end());
  }
  return objects;
}

const k8s::Object& Find(const std::vector<k8s::Object>& objects, const std::string& kind) {
  for (const auto& object : objects) {
    if (object.kind == kind) return object;
  }
  FAIL("no " << kind);
  return objects.front();
}

// load_parameters_path= of the serving template's JetStream container(s).
std::string LoadPath(const k8s::Object& lws) {
  const std::string dumped = lws.json.dump();
  const std::string key = "load_parameters_path=";
  auto at = dumped.find(key);
  REQUIRE(at != std::string::npos);
  at += key.size();
  return dumped.substr(at, dumped.find('"', at) - at);
}

TEST_CASE("the converter writes each served model's checkpoint where serve up reads it by default") {
  for (const std::string model : {"llama3.1-405b", "llama2-70b"}) {
    INFO(model);
    auto sets = ConverterSetsFor(model, "ckpt");
    REQUIRE(sets);
    sets->push_back("META_URL=https://llama3-1.llamameta.net/*?Policy=x");
    const auto converter = RenderObjects(kConverterTemplate, *sets);
    const std::string checkpoint = CheckpointOf(Find(converter, "Job"));
    const bool disaggregated = model == "llama2-70b";
    auto serving = RenderObjects(*ServeTemplateFor(model, disaggregated), {});
    CHECK(LoadPath(Find(serving, "LeaderWorkerSet")) == checkpoint);
    CHECK(checkpoint.rfind("gs://ckpt/maxtext/", 0) == 0);
  }
  auto sets = ConverterSetsFor("llama3.1-405b", "ckpt");
  sets->push_back("META_URL=x");
  CHECK(CheckpointOf(Find(RenderObjects(kConverterTemplate, *sets), "Job")) == "gs://ckpt/maxtext/llama-3.1-405b/int8");
  sets->push_back("QUANTIZE_TYPE=int4w");
  CHECK(CheckpointOf(Find(RenderObjects(kConverterTemplate, *sets), "Job")) ==
        "gs://ckpt/maxtext/llama-3.1-405b/int4w");
}

TEST_CASE("a model without a conversion is one usage line naming --model") {
  auto unknown = ConverterSetsFor("llama3-8b", "ckpt");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK(unknown.error().message.rfind("--model: llama3-8b has no checkpoint conversion", 0) == 0);
  CHECK(unknown.error().message.find('\n') == std::string::npos);
  CHECK(CheckpointOf(k8s::Object{}).empty());
}

TEST_CASE("a Job is complete or failed by its conditions, and only when they are True") {
  using Phase = JobState::Phase;
  CHECK(JobStateOf(nlohmann::json::object()).phase == Phase::kRunning);
  const nlohmann::json complete = {
      {"status",
       {{"conditions",
         {{{"type", "SuccessCriteriaMet"}, {"status", "True"}}, {{"type", "Complete"}, {"status", "True"}}}}}}};
  CHECK(JobStateOf(complete).phase == Phase::kComplete);
  const nlohmann::json failed = {{"status",
                                  {{"conditions",
                                    {{{"type", "Failed"},
                                      {"status", "True"},
                                      {"reason", "BackoffLimitExceeded"},
                                      {"message", "Job has reached the specified backoff limit"}}}}}}};
  CHECK(JobStateOf(failed).phase == Phase::kFailed);
  CHECK(JobStateOf(failed).reason == "BackoffLimitExceeded: Job has reached the specified backoff limit");
  const nlohmann::json not_yet = {{"status", {{"conditions", {{{"type", "Complete"}, {"status", "False"}}}}}}};
  CHECK(JobStateOf(not_yet).phase == Phase::kRunning);
}

TEST_CASE("the last lines of a log are kept whole, however they arrive") {
  LastLines last(3);
  CHECK(last.empty());
  last.Add("one\ntwo\n");
  last.Add("three\n");
  last.Add("four\nfive");  // a last line without its newline gets one
  CHECK(last.Text() == "three\nfour\nfive\n");
}

}  // namespace
}  // namespace tputrain::workflow
