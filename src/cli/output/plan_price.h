#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tputrain/workflow/plan.h"

namespace tputrain::cli {

// plan's table, its rows about money: price, the other ways on the line below, total and estimate, the source.
std::vector<std::vector<std::string>> PlanPriceRows(const std::optional<workflow::PlanPrice>& price);

}  // namespace tputrain::cli
