#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/catalog/models.h"
#include "tputrain/catalog/sizing.h"
#include "tputrain/core/result.h"

// Which model a command means (a name, a size, or a checkpoint's config.json), and the table
// `tputrain models` lists.
namespace tputrain::workflow {

// How the command line named a model: exactly one of name, parameters or hf_config.
struct ModelChoice {
  std::string name;        // --model: a name Models() knows
  std::string parameters;  // --params: "70b"
  std::string active;      // --active-params, with --params only
  std::string hf_config;   // --hf-config: a config.json, or the checkpoint directory holding one
};

// The model, checked before anything is sent: one line naming the flag on bad input (two ways
// of naming a model, a size without a unit, a config.json that is too large, malformed, not
// UTF-8, or of an architecture tputrain cannot size).
core::Result<catalog::Model> ChooseModel(const ModelChoice& choice);

// `plan`: the chosen model's smallest slice, and why.
core::Result<catalog::SlicePlan> PlanModel(const ModelChoice& choice, const catalog::PlanRequest& request);

// One row of `tputrain models`: where each mode fits by default (none: no slice holds it).
struct ModelListing {
  catalog::Model model;
  std::optional<catalog::SlicePlan> train;
  std::optional<catalog::SlicePlan> serve;
};
std::vector<ModelListing> ListModels();
// One model of `models --format json`, the stable contract the README documents: the model, and
// each mode's fit (null when no slice holds it).
nlohmann::json ToJson(const ModelListing& listing);
// `models --format json`: every listing, in ListModels' order.
nlohmann::json ToJson(const std::vector<ModelListing>& listings);

}  // namespace tputrain::workflow
