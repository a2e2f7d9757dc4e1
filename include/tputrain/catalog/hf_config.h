#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/catalog/models.h"
#include "tputrain/core/result.h"

// A Hugging Face checkpoint's config.json as a model tputrain can size: its architecture mapped
// to the MaxText decoder block that builds the same weights, its dimensions to a ModelShape.
namespace tputrain::catalog {

// The architectures read (`architectures[0]`, else `model_type`): Llama, Mistral, Mixtral, Qwen 2,
// Qwen 3 and Qwen 3 MoE, Gemma 1/2/3 (Gemma 3's text_config; its vision tower is not counted),
// DeepSeek V2 and V3. `name` is what the model is called in output (the checkpoint's directory).
// Anything else, or a field missing or out of range, is a usage error naming --hf-config and the
// field.
core::Result<Model> ModelOfHfConfig(const nlohmann::json& config, std::string_view name);

}  // namespace tputrain::catalog
