// Whether a VPC firewall rule lets IAP's TCP forwarding reach a port: pure, no calls.
#include <charconv>

#include "tputrain/workflow/iap_firewall.h"

namespace tputrain::workflow {
namespace {

std::optional<int> Number(std::string_view text, int max) {
  int value = 0;
  if (text.empty() || text.size() > 5) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0 || value > max) return std::nullopt;
  return value;
}

bool AllowsTcpPort(const gcp::compute::ProtocolPorts& entry, int port) {
  // "all" carries no ports; tcp may be named by its IP protocol number.
  if (entry.protocol == "all") return true;
  if (entry.protocol != "tcp" && entry.protocol != "6") return false;
  return PortsAdmit(entry.ports, port);
}

// Enabled, INGRESS, on `network`, and for every instance: tputrain's TPU VMs have no tags, and
// which service account a rule names is not known here, so a targeted rule is not counted.
bool AppliesToTputrainVms(const gcp::compute::Firewall& rule, const std::string& network) {
  if (rule.disabled || rule.direction != gcp::compute::Direction::kIngress) return false;
  if (gcp::compute::NetworkName(rule.network.empty() ? "default" : rule.network) !=
      gcp::compute::NetworkName(network)) {
    return false;
  }
  return rule.target_tags.empty() && rule.target_service_accounts.empty();
}

}  // namespace

std::optional<Ipv4Range> ParseIpv4Range(std::string_view text) {
  Ipv4Range range;
  auto slash = text.find('/');
  if (slash != std::string_view::npos) {
    auto prefix = Number(text.substr(slash + 1), 32);
    if (!prefix) return std::nullopt;
    range.prefix = *prefix;
    text = text.substr(0, slash);
  }
  uint32_t address = 0;
  for (int octet = 0; octet < 4; ++octet) {
    auto dot = text.find('.');
    if ((octet < 3) == (dot == std::string_view::npos)) return std::nullopt;
    auto value = Number(text.substr(0, dot), 255);
    if (!value) return std::nullopt;
    address = (address << 8) | static_cast<uint32_t>(*value);
    text = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  }
  const uint32_t mask = range.prefix == 0 ? 0 : ~uint32_t{0} << (32 - range.prefix);
  range.base = address & mask;
  return range;
}

bool RangeContains(const Ipv4Range& outer, const Ipv4Range& inner) {
  if (outer.prefix > inner.prefix) return false;
  const uint32_t mask = outer.prefix == 0 ? 0 : ~uint32_t{0} << (32 - outer.prefix);
  return (inner.base & mask) == outer.base;
}

bool PortsAdmit(const std::vector<std::string>& ports, int port) {
  if (ports.empty()) return true;
  for (const auto& entry : ports) {
    std::string_view text = entry;
    auto dash = text.find('-');
    auto low = Number(text.substr(0, dash), 65535);
    auto high = dash == std::string_view::npos ? low : Number(text.substr(dash + 1), 65535);
    if (low && high && *low <= port && port <= *high) return true;
  }
  return false;
}

bool AdmitsIap(const gcp::compute::Firewall& rule, const std::string& network, int port) {
  if (!AppliesToTputrainVms(rule, network)) return false;
  const Ipv4Range iap = *ParseIpv4Range(kIapSourceRange);
  bool source = false;
  for (const auto& text : rule.source_ranges) {
    auto range = ParseIpv4Range(text);  // IPv6 ranges do not parse, and IAP's range is IPv4
    if (range && RangeContains(*range, iap)) source = true;
  }
  if (!source) return false;
  for (const auto& entry : rule.allowed) {
    if (AllowsTcpPort(entry, port)) return true;
  }
  return false;
}

bool DeniesIap(const gcp::compute::Firewall& rule, const std::string& network, int port) {
  if (!AppliesToTputrainVms(rule, network)) return false;
  const Ipv4Range iap = *ParseIpv4Range(kIapSourceRange);
  bool source = false;
  for (const auto& text : rule.source_ranges) {
    auto range = ParseIpv4Range(text);
    // Any address of IAP's range refused is a tunnel that fails now and then.
    if (range && (RangeContains(*range, iap) || RangeContains(iap, *range))) source = true;
  }
  if (!source) return false;
  for (const auto& entry : rule.denied) {
    if (AllowsTcpPort(entry, port)) return true;
  }
  return false;
}

IapAccess IapAccessOf(const std::vector<gcp::compute::Firewall>& rules, const std::string& network, int port) {
  const gcp::compute::Firewall* allow = nullptr;
  const gcp::compute::Firewall* deny = nullptr;
  for (const auto& rule : rules) {
    if (AdmitsIap(rule, network, port) && (allow == nullptr || rule.priority < allow->priority)) allow = &rule;
    if (DeniesIap(rule, network, port) && (deny == nullptr || rule.priority < deny->priority)) deny = &rule;
  }
  // Compute applies the rule of the lowest priority number; at equal priority a deny wins.
  if (deny != nullptr && (allow == nullptr || deny->priority <= allow->priority)) return {nullptr, deny};
  return {allow, nullptr};
}

const gcp::compute::Firewall* RuleAdmittingIap(const std::vector<gcp::compute::Firewall>& rules,
                                               const std::string& network, int port) {
  return IapAccessOf(rules, network, port).admitting;
}

core::Result<IapFirewallMode> ParseIapFirewallMode(std::string_view flag, std::string_view value) {
  if (value == "check") return IapFirewallMode::kCheck;
  if (value == "create") return IapFirewallMode::kCreate;
  if (value == "skip") return IapFirewallMode::kSkip;
  return core::Fail(
      core::Error::Usage(std::string(flag) + ": expected check, create or skip, got '" + std::string(value) + "'"));
}

}  // namespace tputrain::workflow
