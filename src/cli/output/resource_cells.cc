#include "output/resource_cells.h"

#include "tputrain/core/resource_name.h"

namespace tputrain::cli {

ResourceCells CellsOf(state::ResourceKind kind, const std::string& key, const nlohmann::json& details, bool wide,
                      std::string_view fallback) {
  ResourceCells cells = workflow::PlaceOf(kind, key, details, fallback);
  if (wide && !key.empty()) cells.name = key;
  return cells;
}

std::string OperationCell(const std::string& operation, bool wide) {
  if (wide) return operation;
  return core::LastSegment(operation);
}

std::vector<std::vector<std::string>> OutcomeRows(const std::vector<workflow::Outcome>& outcomes, bool wide) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& outcome : outcomes) {
    auto cells = CellsOf(outcome.kind, outcome.resource.empty() ? outcome.name : outcome.resource, outcome.details,
                         wide, outcome.name);
    rows.push_back({std::string(state::KindName(outcome.kind)), cells.name, cells.location,
                    std::string(workflow::OutcomeActionPhrase(outcome.action))});
  }
  return rows;
}

}  // namespace tputrain::cli
