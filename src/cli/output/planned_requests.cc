#include "output/planned_requests.h"

#include "output/output.h"
#include "tputrain/core/json.h"

namespace tputrain::cli {

void PrintPlannedRequests(Context& context, const std::vector<http::Request>& planned) {
  nlohmann::json requests = nlohmann::json::array();
  for (const auto& request : planned) {
    nlohmann::json entry = {{"method", request.method}, {"url", request.url}};
    if (!request.body.empty()) {
      std::string shown = context.redactor(request.body);
      entry["body"] = core::ParseJson(shown, "").value_or(nlohmann::json(shown));
    }
    requests.push_back(std::move(entry));
  }
  PrintResult(context, {{"dry_run", true}, {"requests", requests}}, [&](std::ostream& out) {
    for (const auto& request : planned) {
      out << request.method << " " << request.url << "\n";
      if (!request.body.empty()) out << context.redactor(request.body) << "\n";
    }
  });
}

}  // namespace tputrain::cli
