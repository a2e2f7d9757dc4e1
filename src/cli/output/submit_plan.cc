#include "output/submit_plan.h"

#include "output/output.h"

namespace tputrain::cli {

void PrintSubmitPlan(Context& context, const nlohmann::json& plan) {
  if (!plan.contains("applies")) {
    PrintResult(context, plan, [&](std::ostream& out) { out << plan.dump(2) << "\n"; });
    return;
  }
  PrintResult(context, plan, [&](std::ostream& out) {
    for (const auto& apply : plan["applies"]) {
      out << apply["method"].get<std::string>() << " " << apply["url"].get<std::string>() << "\n"
          << "Content-Type: " << apply["content_type"].get<std::string>() << "\n"
          << context.redactor(apply["body"].dump(2)) << "\n";
    }
    const auto& wait = plan["wait"];
    out << "# then wait until " << wait["kind"].get<std::string>() << " " << wait["namespace"].get<std::string>() << "/"
        << wait["name"].get<std::string>() << " is ready (" << wait["until"].get<std::string>() << ")\n";
    for (const auto& request : plan["job_requests"]) {
      out << request["method"].get<std::string>() << " " << request["url"].get<std::string>() << "\n";
      if (request.contains("body")) out << context.redactor(request["body"].dump(2)) << "\n";
      if (request.contains("bytes")) out << "(" << request["bytes"].get<size_t>() << " bytes of zip)\n";
    }
  });
}

}  // namespace tputrain::cli
