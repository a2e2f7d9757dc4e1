#pragma once

// The values of a flag that only the program knows, for shell completion and the version line.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tputrain::workflow {

// By flag (or argument) name: TPU types (each also in its family's spelling) for --tpu-type and
// --accelerator-type, generations for --accelerator, model names for --model, template names
// (from the directories `template_dirs` gives, asked only then) for TEMPLATE; nothing for any other.
std::vector<std::string> CompletionValues(const std::string& option,
                                          const std::function<std::vector<std::string>()>& template_dirs);

// The network libraries as loaded at run time (libcurl and its TLS library) and wslay as built:
// (name, version) pairs, for `tputrain version`.
std::vector<std::pair<std::string, std::string>> NetworkLibraryVersions();

}  // namespace tputrain::workflow
