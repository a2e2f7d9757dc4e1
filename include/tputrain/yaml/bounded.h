#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "tputrain/core/result.h"

// Every YAML text tputrain reads (manifests, kubeconfigs, tputrain.yaml, values files, runtime
// envs, templates) goes through here. yaml-cpp shares an aliased node instead of copying it, so
// a few hundred bytes of nested aliases ("billion laughs") load in microseconds and then expand
// to gigabytes in whatever walks them: the walk is bounded here, counting every alias as its
// expansion, before any caller converts, merges or re-emits a document.
namespace tputrain::yaml {

struct Limits {
  size_t max_bytes = 32 * 1024 * 1024;  // the text itself
  size_t max_nodes = 1'000'000;         // nodes once aliases are expanded, per text
  size_t max_depth = 256;               // nesting of sequences and maps
};

// The documents of `text`, each checked against `limits`. Malformed YAML ("WHAT: not valid YAML
// at line N: ..."), or a text beyond the limits, is one line starting with `what` (a flag or
// file name), kind kInvalidArgument.
core::Result<std::vector<YAML::Node>> LoadAll(std::string_view text, std::string_view what, const Limits& limits = {});

// The one document of `text` (an empty text is a null node), checked the same way.
core::Result<YAML::Node> Load(std::string_view text, std::string_view what, const Limits& limits = {});

// Checks a node built elsewhere (a document an editor merged, say) against `limits`.
core::Status CheckExpansion(const YAML::Node& node, std::string_view what, const Limits& limits = {});

}  // namespace tputrain::yaml
