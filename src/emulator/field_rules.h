#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

// What Google refuses in the fields tputrain sends, refused by the emulator too, so that a
// client bug shows in tests instead of in a user's project. Written from the APIs' documented
// rules, independently of tputrain's own client-side checks (which would otherwise test
// themselves). Each returns what is wrong, in a phrase an error message can carry, or nothing.
namespace tputrain::emulator {

// Labels (GKE resourceLabels, TPU node labels, bucket labels): at most 64; keys 1-63 characters,
// a lowercase letter first, then lowercase letters, digits, '_' and '-'; values 0-63 of those.
std::optional<std::string> LabelProblem(const nlohmann::json& labels);

// A node count: a whole number, not negative.
std::optional<std::string> NodeCountProblem(const nlohmann::json& count);

// Cloud Storage reserves names that start with "goog", contain "google", or are IP addresses.
std::optional<std::string> ReservedBucketNameProblem(const std::string& name);

// Each binding's role is roles/NAME, projects/P/roles/NAME or organizations/O/roles/NAME.
std::optional<std::string> BindingsProblem(const nlohmann::json& bindings);

}  // namespace tputrain::emulator
