#pragma once

#include <string_view>
#include <vector>

#include "tputrain/catalog/model_shape.h"

// The models of the pinned MaxText, written into maxtext_models.cc by
// scripts/generate-model-table.py.
namespace tputrain::catalog {

struct MaxTextModel {
  std::string_view name;     // what MaxText's model_name accepts: "llama3.3-70b"
  std::string_view config;   // its configs/models/<config>.yml ("llama3.1-8b" for llama3.1-8b-Instruct)
  std::string_view hf_repo;  // the Hugging Face repo MaxText reads its tokenizer from; "" when none
  ModelShape shape;
};

// In the order of MaxText's ModelName.
const std::vector<MaxTextModel>& MaxTextModels();

}  // namespace tputrain::catalog
