// What `serve up --engine saxml` serves, from its flags or a stack's serve section: a preset,
// or a model of the user's own (--model-path and --sax-model), with the preset's values
// overridden by whatever the flags say.
#include "tputrain/core/number.h"
#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::workflow {

core::Result<SaxmlUpRequest> SaxmlRequestOf(const SaxmlChoice& choice) {
  SaxmlUpRequest request;
  auto preset = FindSaxmlPreset(choice.model);
  if (!preset && choice.model_path.empty()) return core::Fail(preset.error());
  if (preset) {
    request.model = preset->model;
    request.tpu_type = preset->tpu_type;
    request.parameters = preset->parameters;
  } else {
    // Another servable: --model names it for the user, --model-path and --sax-model say what to publish.
    request.model = {"", choice.model_path, "None", 1};
    if (choice.tpu_type.empty()) return core::Fail(core::Error::Usage("--tpu-type: needed with --model-path"));
  }
  if (!choice.model_path.empty()) request.model.model_path = choice.model_path;
  if (!choice.sax_model.empty()) request.model.id = choice.sax_model;
  if (request.model.id.empty()) return core::Fail(core::Error::Usage("--sax-model: needed with --model-path"));
  if (auto valid = serving::CheckSaxModelId("--sax-model", request.model.id); !valid) return core::Fail(valid.error());
  if (!choice.checkpoint.empty()) {
    if (choice.checkpoint != "None" && choice.checkpoint.rfind("gs://", 0) != 0) {
      return core::Fail(core::Error::Usage("--checkpoint: expected gs://BUCKET/PATH or None (random weights), got '" +
                                           choice.checkpoint + "'"));
    }
    request.model.checkpoint = choice.checkpoint;
  }
  // --replicas: 1..64 model-server groups, a slice each; empty is the preset's.
  if (!choice.replicas.empty()) {
    auto replicas = core::ParseWhole("--replicas", choice.replicas, 1, 64);
    if (!replicas) return core::Fail(replicas.error());
    request.model.replicas = *replicas;
  }
  if (!choice.tpu_type.empty()) request.tpu_type = choice.tpu_type;
  return request;
}

}  // namespace tputrain::workflow
