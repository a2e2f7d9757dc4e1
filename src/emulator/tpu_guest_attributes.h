#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"

// Guest attributes of a TPU VM node: what each host writes to its metadata server
// (PUT computeMetadata/v1/instance/guest-attributes/NAMESPACE/KEY) and nodes.getGuestAttributes
// reads back, kept in the node as "_guestAttributes": {"<worker>": {"<namespace>": {"<key>": value}}}.
namespace tputrain::emulator {

void StoreGuestAttribute(nlohmann::json& node, int worker, const std::string& name_space, const std::string& key,
                         const std::string& value);
std::optional<std::string> FindGuestAttribute(const nlohmann::json& node, int worker, const std::string& name_space,
                                              const std::string& key);

// [{namespace, key, value}] of one worker, sorted, for a queryPath: "" or "/" everything,
// "NAMESPACE" or "NAMESPACE/" one namespace, "NAMESPACE/KEY" one key.
nlohmann::json GuestAttributeItems(const nlohmann::json& node, int worker, const std::string& query_path);

// The workers a GetGuestAttributesRequest names: none (or gcloud's [""]) means all `workers`;
// otherwise each id must be a worker number below `workers` (a usage error names the bad one).
core::Result<std::vector<int>> SelectWorkers(const nlohmann::json& worker_ids, int workers);

}  // namespace tputrain::emulator
