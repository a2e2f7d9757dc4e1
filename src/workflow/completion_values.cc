#include "tputrain/workflow/completion_values.h"

#include "tputrain/catalog/models.h"
#include "tputrain/catalog/tpu_types.h"
#include "tputrain/http/library_versions.h"
#include "tputrain/render/template.h"

namespace tputrain::workflow {

std::vector<std::string> CompletionValues(const std::string& option,
                                          const std::function<std::vector<std::string>()>& template_dirs) {
  std::vector<std::string> values;
  if (option == "--tpu-type" || option == "--accelerator-type") {
    for (const auto& generation : catalog::Generations()) {
      for (const auto& slice : catalog::SlicesOf(generation)) {
        values.push_back(slice.accelerator_type);
        // "v5e-32" is accepted for "v5litepod-32": offer the family's spelling too.
        if (generation.family != generation.name_prefix) {
          values.push_back(generation.family + slice.accelerator_type.substr(generation.name_prefix.size()));
        }
      }
    }
  } else if (option == "--accelerator") {
    for (const auto& generation : catalog::Generations()) values.push_back(generation.family);
  } else if (option == "--model") {
    for (const auto& model : catalog::Models()) values.push_back(model.name);
  } else if (option == "TEMPLATE") {
    if (auto templates = render::ListTemplates(template_dirs())) {
      for (const auto& summary : *templates) values.push_back(summary.name);
    }
  }
  return values;
}

std::vector<std::pair<std::string, std::string>> NetworkLibraryVersions() { return http::NetworkLibraryVersions(); }

}  // namespace tputrain::workflow
