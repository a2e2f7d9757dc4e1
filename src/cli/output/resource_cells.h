#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/workflow/entry_place.h"
#include "tputrain/workflow/provision.h"

// What a table shows of a resource the run ledger names, as gcloud and kubectl show theirs: the
// short name in NAME and where it is in LOCATION; the full name (the ledger's key, what --format
// json carries) with --format wide.
namespace tputrain::cli {

using ResourceCells = workflow::EntryPlace;

// workflow::PlaceOf, with the full name (the ledger's key) under --format wide.
ResourceCells CellsOf(state::ResourceKind kind, const std::string& key, const nlohmann::json& details, bool wide,
                      std::string_view fallback = "");

// An operation's last segment (operation-1763630102000-5f3a9c1e), or all of it with `wide`.
std::string OperationCell(const std::string& operation, bool wide);

// KIND, NAME, LOCATION and RESULT of each outcome (a create's, a delete's).
std::vector<std::vector<std::string>> OutcomeRows(const std::vector<workflow::Outcome>& outcomes, bool wide);

}  // namespace tputrain::cli
