#include "tputrain/emulator/faults.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace tputrain::emulator {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::optional<int> PositiveInt(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

core::Unexpected<core::Error> Bad(std::string_view rule, const std::string& what) {
  return core::Fail(core::Error::Usage("--faults: rule '" + std::string(rule) + "': " + what));
}

bool EndsWithSegment(std::string_view id, std::string_view tail) {
  return id == tail || (id.size() > tail.size() && id.substr(id.size() - tail.size()) == tail &&
                        id[id.size() - tail.size() - 1] == '.');
}

core::Status ParseAction(std::string_view rule, std::string_view action, FaultRule& out) {
  if (action == "stockout") {
    out.action = FaultAction::kStockout;
  } else if (action == "stuck") {
    out.action = FaultAction::kStuck;
  } else if (action == "drop") {
    out.action = FaultAction::kDrop;
  } else if (action == "lose-reply") {
    out.action = FaultAction::kLoseReply;
  } else if (auto code = PositiveInt(action)) {
    if (*code < 400 || *code > 599) return Bad(rule, "HTTP status must be 400-599, got " + std::string(action));
    out.action = FaultAction::kError;
    out.http_status = *code;
    out.error = core::KindFromHttpStatus(*code);
  } else {
    auto kind = core::KindFromStatusName(action);
    if (kind == core::ErrorKind::kInternal && action != "INTERNAL") {
      return Bad(rule, "unknown action '" + std::string(action) +
                           "' (expected a status such as RESOURCE_EXHAUSTED or UNAVAILABLE, an HTTP code such "
                           "as 503, or stockout, stuck, drop, lose-reply)");
    }
    out.action = FaultAction::kError;
    out.error = kind;
    out.http_status = 0;  // the emulator maps the kind to Google's HTTP status
  }
  return {};
}

core::Status ParseWhen(std::string_view rule, std::string_view when, FaultRule& out) {
  auto colon = when.find(':');
  if (colon == std::string_view::npos) return Bad(rule, "expected @nth:N, @first:N, @every:N or @p:P after '@'");
  std::string_view key = when.substr(0, colon);
  std::string_view value = when.substr(colon + 1);
  if (key == "p") {
    double probability = -1;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), probability);
    if (ec != std::errc() || end != value.data() + value.size() || probability < 0 || probability > 1) {
      return Bad(rule, "probability must be between 0 and 1, got '" + std::string(value) + "'");
    }
    out.when = FaultWhen::kRandom;
    out.probability = probability;
    return {};
  }
  auto n = PositiveInt(value);
  if (!n) return Bad(rule, "'" + std::string(key) + "' needs a positive integer, got '" + std::string(value) + "'");
  if (key == "nth") {
    out.when = FaultWhen::kNth;
  } else if (key == "first") {
    out.when = FaultWhen::kFirst;
  } else if (key == "every") {
    out.when = FaultWhen::kEvery;
  } else {
    return Bad(rule, "unknown condition '" + std::string(key) + "' (expected nth, first, every or p)");
  }
  out.n = *n;
  return {};
}

}  // namespace

bool MethodMatches(std::string_view method_id, std::string_view target) {
  return target == "*" || EndsWithSegment(method_id, target);
}

bool FaultRule::Matches(std::string_view method_id) const { return MethodMatches(method_id, target); }

core::Result<std::vector<FaultRule>> ParseFaults(std::string_view spec, const std::vector<std::string>& known_methods,
                                                 const std::vector<std::string>& operation_methods) {
  std::vector<FaultRule> rules;
  while (!Trim(spec).empty()) {
    auto comma = spec.find(',');
    std::string_view text = Trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (text.empty()) continue;
    FaultRule rule;
    rule.text = std::string(text);
    auto equals = text.find('=');
    if (equals == std::string_view::npos || equals == 0) return Bad(text, "expected TARGET=ACTION[@WHEN]");
    rule.target = std::string(Trim(text.substr(0, equals)));
    std::string_view rest = text.substr(equals + 1);
    auto at = rest.find('@');
    if (auto status = ParseAction(text, Trim(rest.substr(0, at)), rule); !status) return core::Fail(status.error());
    if (at != std::string_view::npos) {
      if (auto status = ParseWhen(text, Trim(rest.substr(at + 1)), rule); !status) return core::Fail(status.error());
    }
    bool known = rule.target == "*" || std::any_of(known_methods.begin(), known_methods.end(),
                                                   [&](const std::string& id) { return rule.Matches(id); });
    if (!known) return Bad(text, "unknown method '" + rule.target + "' (e.g. nodePools.create, nodes.create, *)");
    if (rule.action == FaultAction::kStockout || rule.action == FaultAction::kStuck) {
      bool starts_operation = std::any_of(operation_methods.begin(), operation_methods.end(),
                                          [&](const std::string& id) { return rule.Matches(id); });
      if (!starts_operation || rule.target == "*") {
        return Bad(text,
                   "stockout and stuck apply to calls that start an operation (e.g. clusters.create, "
                   "nodePools.create, nodes.create)");
      }
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

FaultPlan::FaultPlan(std::vector<FaultRule> rules, uint64_t seed)
    : rules_(std::move(rules)), seen_(rules_.size(), 0), random_(seed) {}

std::optional<FaultRule> FaultPlan::Decide(std::string_view method_id) {
  std::optional<FaultRule> fired;
  for (size_t i = 0; i < rules_.size(); ++i) {
    const FaultRule& rule = rules_[i];
    if (!rule.Matches(method_id)) continue;
    int count = ++seen_[i];
    bool fires = false;
    switch (rule.when) {
      case FaultWhen::kAlways:
        fires = true;
        break;
      case FaultWhen::kNth:
        fires = count == rule.n;
        break;
      case FaultWhen::kFirst:
        fires = count <= rule.n;
        break;
      case FaultWhen::kEvery:
        fires = count % rule.n == 0;
        break;
      case FaultWhen::kRandom:
        fires = std::uniform_real_distribution<double>(0, 1)(random_) < rule.probability;
        break;
    }
    if (fires && !fired) fired = rule;
  }
  return fired;
}

}  // namespace tputrain::emulator
