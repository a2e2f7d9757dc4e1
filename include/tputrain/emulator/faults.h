#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/error.h"
#include "tputrain/core/result.h"

namespace tputrain::emulator {

// What an injected fault does to a matching call.
enum class FaultAction {
  kError,      // answer with an error status instead of handling the call
  kStockout,   // the operation the call starts ends with Google's stockout error
  kStuck,      // the operation the call starts never finishes
  kDrop,       // close the connection without handling the call
  kLoseReply,  // handle the call, then close the connection without answering
};

// When a rule fires among the calls it matches (counted per rule, from 1).
enum class FaultWhen { kAlways, kNth, kFirst, kEvery, kRandom };

struct FaultRule {
  std::string
      target;  // "*", a method id ("container.projects.locations.clusters.create") or its tail ("clusters.create")
  FaultAction action = FaultAction::kError;
  core::ErrorKind error = core::ErrorKind::kUnavailable;  // for kError
  int http_status = 503;                                  // for kError
  FaultWhen when = FaultWhen::kAlways;
  int n = 0;               // for kNth, kFirst, kEvery
  double probability = 0;  // for kRandom
  std::string text;        // the rule as written, for logs

  bool Matches(std::string_view method_id) const;
};

// Whether `target` ("*", a method id or its tail, as a fault rule or a latency names it) names
// `method_id`.
bool MethodMatches(std::string_view method_id, std::string_view target);

// Parses `--faults`: comma-separated rules `TARGET=ACTION[@WHEN]`.
//   ACTION: a google.rpc status name (RESOURCE_EXHAUSTED, UNAVAILABLE, ...) or an HTTP status
//           (503), or stockout | stuck | drop | lose-reply
//   WHEN:   nth:N | first:N | every:N | p:0.25 (random, seeded by --seed); default always
// `known_methods` are the emulator's method ids; `operation_methods` those that start an
// operation (the only ones stockout/stuck apply to). Errors are usage errors naming the rule.
core::Result<std::vector<FaultRule>> ParseFaults(std::string_view spec, const std::vector<std::string>& known_methods,
                                                 const std::vector<std::string>& operation_methods);

// Decides, call by call, which rule fires. Not thread-safe: the emulator calls it under its lock.
class FaultPlan {
 public:
  FaultPlan() = default;
  FaultPlan(std::vector<FaultRule> rules, uint64_t seed);
  // The first rule that matches `method_id` and fires on this call; every matching rule counts the call.
  std::optional<FaultRule> Decide(std::string_view method_id);
  bool empty() const { return rules_.empty(); }

 private:
  std::vector<FaultRule> rules_;
  std::vector<int> seen_;
  std::mt19937_64 random_;
};

}  // namespace tputrain::emulator
