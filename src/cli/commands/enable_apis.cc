#include "commands/enable_apis.h"

#include <set>

#include "tputrain/gcp/error_from_http.h"
#include "tputrain/workflow/services.h"

namespace tputrain::cli {

core::Result<std::vector<workflow::Outcome>> RunEnablingApis(Context& context, workflow::ProvisionEnv& env,
                                                             const ProvisionBody& body, bool enable_apis) {
  auto outcomes = body(env);
  // --enable-apis: an API the project lacks is enabled and the command run again; creates adopt
  // what the first attempt made, so the second picks up where it stopped. One try per API.
  std::set<std::string> enabled;
  while (!outcomes && enable_apis && outcomes.error().reason == gcp::kReasonServiceDisabled) {
    const auto& metadata = outcomes.error().metadata;
    auto service = metadata.find("service");
    if (service == metadata.end() || !enabled.insert(service->second).second) break;
    // The consumer is "projects/NUMBER": Service Usage takes the number as well as the id.
    auto consumer = metadata.find("consumer");
    std::string project = consumer != metadata.end() && consumer->second.rfind("projects/", 0) == 0
                              ? consumer->second.substr(9)
                              : context.settings()->Get("project").value_or("");
    auto changed = workflow::EnableServices(env, project, {service->second});
    if (!changed) return core::Fail(changed.error());
    outcomes = body(env);
  }
  return outcomes;
}

}  // namespace tputrain::cli
