// Which model a command means, and where every known one fits.
#include "tputrain/workflow/models.h"

#include <filesystem>

#include "tputrain/catalog/hf_config.h"
#include "tputrain/core/file.h"
#include "tputrain/core/json.h"

namespace tputrain::workflow {
namespace {

// A config.json is a few kilobytes; a megabyte is room for any, and refuses a wrong path (a
// weights file, a disk image) before it is read into memory.
constexpr size_t kMaxConfigBytes = core::kMiB;
constexpr core::JsonLimits kConfigLimits{kMaxConfigBytes, 32, 100'000};

// What the checkpoint is called: its directory for DIR/config.json, else the file's own name.
std::string CheckpointName(const std::filesystem::path& file) {
  if (file.filename() == "config.json") {
    const auto directory = file.parent_path().filename().string();
    if (!directory.empty() && directory != "." && directory != "..") return directory;
  }
  return file.stem().string();
}

core::Result<catalog::Model> ModelOfConfigFile(const std::string& path) {
  std::filesystem::path file = path;
  auto text = core::ReadFile(file.string(), "--hf-config", kMaxConfigBytes);
  if (!text && text.error().reason == core::kFileIsDirectory) {
    file /= "config.json";  // a checkpoint's directory: its config.json
    text = core::ReadFile(file.string(), "--hf-config", kMaxConfigBytes);
  }
  if (!text) return core::Fail(text.error());
  auto json = core::ParseJson(*text, "--hf-config " + file.string(), kConfigLimits);
  if (!json) return core::Fail(json.error());  // a usage error: the user's file, exit 2
  return catalog::ModelOfHfConfig(*json, CheckpointName(file));
}

}  // namespace

core::Result<catalog::Model> ChooseModel(const ModelChoice& choice) {
  const int given = !choice.name.empty() + !choice.parameters.empty() + !choice.hf_config.empty();
  if (given == 0) {
    return core::Fail(
        core::Error::Usage("--model: required: a model name (tputrain models), --params SIZE or --hf-config FILE"));
  }
  if (given > 1) {
    const char* second = choice.name.empty() ? "--hf-config" : !choice.parameters.empty() ? "--params" : "--hf-config";
    return core::Fail(
        core::Error::Usage(std::string(second) + ": give one of --model, --params or --hf-config, not several"));
  }
  if (!choice.active.empty() && choice.parameters.empty()) {
    return core::Fail(core::Error::Usage(
        "--active-params: only with --params (a named model or a config.json says its own active parameters)"));
  }
  if (!choice.name.empty()) return catalog::FindModel(choice.name);
  if (!choice.parameters.empty()) return catalog::ModelOfSize(choice.parameters, choice.active);
  return ModelOfConfigFile(choice.hf_config);
}

core::Result<catalog::SlicePlan> PlanModel(const ModelChoice& choice, const catalog::PlanRequest& request) {
  auto model = ChooseModel(choice);
  if (!model) return core::Fail(model.error());
  return catalog::PlanSlice(*model, request);
}

std::vector<ModelListing> ListModels() {
  std::vector<ModelListing> listings;
  for (const auto& model : catalog::Models()) {
    ModelListing listing{model, std::nullopt, std::nullopt};
    if (auto train = catalog::PlanSlice(model, {.mode = catalog::WorkloadMode::kTrain})) listing.train = *train;
    if (auto serve = catalog::PlanSlice(model, {.mode = catalog::WorkloadMode::kServe})) listing.serve = *serve;
    listings.push_back(std::move(listing));
  }
  return listings;
}

namespace {

nlohmann::json FitJson(const std::optional<catalog::SlicePlan>& plan) {
  if (!plan) return nullptr;
  return {{"accelerator_type", plan->slice.accelerator_type},
          {"topology", plan->slice.topology},
          {"chips", plan->slice.chips},
          {"hosts", plan->slice.hosts},
          {"slices", plan->slices},
          {"dtype", plan->dtype},
          {"memory_gb_per_slice", plan->memory_gb_per_slice}};
}

nlohmann::json OrNull(const std::string& text) { return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text); }

}  // namespace

nlohmann::json ToJson(const ModelListing& listing) {
  const auto& model = listing.model;
  return {{"name", model.name},
          {"description", OrNull(model.description)},
          {"origin", catalog::OriginName(model.origin)},
          {"source", model.origin_detail},
          {"parameters", model.parameters},
          {"active_parameters", model.active_parameters},
          {"mixture_of_experts", model.mixture_of_experts()},
          {"decoder_block", model.shape ? nlohmann::json(catalog::DecoderBlockName(model.shape->decoder_block))
                                        : nlohmann::json(nullptr)},
          {"maxtext_model_name", OrNull(model.maxtext_model_name)},
          {"hf_repo", OrNull(model.hf_repo)},
          {"default_mode", catalog::ModeName(model.default_mode)},
          {"train", FitJson(listing.train)},
          {"serve", FitJson(listing.serve)}};
}

nlohmann::json ToJson(const std::vector<ModelListing>& listings) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& listing : listings) json.push_back(ToJson(listing));
  return json;
}

}  // namespace tputrain::workflow
