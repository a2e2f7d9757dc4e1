#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/gcp/compute/client.h"
#include "tputrain/workflow/provision.h"

// The VPC firewall rule IAP TCP forwarding needs to reach a TPU VM's port (the Ray dashboard,
// 8265): ingress from IAP's range 35.235.240.0/20 (cloud.google.com/iap/docs/using-tcp-forwarding).
// Checked before a `tpu-vm create --ray`, created on request (ledgered as `firewall-rule`:
// firewalls carry no labels, so the ledger is the only record that a run made it), or left alone.
namespace tputrain::workflow {

inline constexpr char kIapSourceRange[] = "35.235.240.0/20";
inline constexpr int kRayDashboardPort = 8265;

// An IPv4 CIDR block; an address alone is a /32.
struct Ipv4Range {
  uint32_t base = 0;  // masked to the prefix
  int prefix = 32;
};
std::optional<Ipv4Range> ParseIpv4Range(std::string_view text);
bool RangeContains(const Ipv4Range& outer, const Ipv4Range& inner);

// Whether a rule's port list ("22", "8000-9000"; none means all) takes in `port`.
bool PortsAdmit(const std::vector<std::string>& ports, int port);

// Whether `rule`, on its own, lets every address of 35.235.240.0/20 reach tcp `port` of a TPU VM
// made by tputrain on `network`: enabled, INGRESS, on that network, a source range containing
// the whole IAP range (0.0.0.0/0 does), an `allowed` entry for tcp (or "all", or protocol 6)
// taking in the port, and no targetTags or targetServiceAccounts (tputrain's TPU VMs have no
// tags, and which service account a rule names is not known here, so a restricted rule is not
// counted). Whether a deny rule overrides it is IapAccessOf's question.
bool AdmitsIap(const gcp::compute::Firewall& rule, const std::string& network, int port);

// Whether `rule` refuses some address of IAP's range tcp `port` on such a TPU VM: enabled,
// INGRESS, on that network, untargeted, a source range overlapping IAP's, a `denied` entry for
// tcp (or "all", or protocol 6) taking in the port.
bool DeniesIap(const gcp::compute::Firewall& rule, const std::string& network, int port);

// What Compute decides for IAP's connections: the applicable rule of the lowest priority number
// wins, and at equal priority a deny beats an allow. Either the allow rule that admits IAP, or
// the deny rule that refuses it (overriding every allow), or neither (the implied deny).
struct IapAccess {
  const gcp::compute::Firewall* admitting = nullptr;
  const gcp::compute::Firewall* denying = nullptr;
};
IapAccess IapAccessOf(const std::vector<gcp::compute::Firewall>& rules, const std::string& network, int port);

// IapAccessOf(...).admitting: the rule that admits IAP, unless a deny rule overrides it.
const gcp::compute::Firewall* RuleAdmittingIap(const std::vector<gcp::compute::Firewall>& rules,
                                               const std::string& network, int port);

enum class IapFirewallMode { kCheck, kCreate, kSkip };
// "check" | "create" | "skip"; otherwise one usage line naming `flag`.
core::Result<IapFirewallMode> ParseIapFirewallMode(std::string_view flag, std::string_view value);

struct IapFirewallRequest {
  std::string project;
  std::string network = "default";
  int port = kRayDashboardPort;
  IapFirewallMode mode = IapFirewallMode::kCheck;
};

// tputrain's rule for `network`: tputrain-allow-iap-<network>, cut to Compute's 63 characters.
std::string IapFirewallRuleName(const std::string& network);
// The rule tputrain would create.
gcp::compute::Firewall IapFirewallRule(const IapFirewallRequest& request);
// The gcloud command that creates the same rule.
std::string GcloudIapFirewallCommand(const IapFirewallRequest& request);

// What EnsureIapFirewall found or did.
struct IapFirewallCheck {
  // The rule that admits IAP ("" when none does, or nothing was looked at: skip, --dry-run check).
  std::string admitted_by;
  // The create's outcome (created, adopted, or --dry-run's would-send), when mode is kCreate and
  // no other rule admits IAP.
  std::optional<Outcome> outcome;
};

// kSkip: nothing. kCheck: lists the project's firewall rules; when none admits IAP, one warning
// line (env.reporter) with the gcloud command and the flag that would create it; a list that
// fails (no permission, Compute API off) is a warning too: a check never stops a create. kCreate: the
// same look, then tputrain's rule created (or adopted when it exists), ledgered. --dry-run sends
// nothing: a create's request is collected, a check is not made.
core::Result<IapFirewallCheck> EnsureIapFirewall(ProvisionEnv& env, const IapFirewallRequest& request);

// Runs `create` after EnsureIapFirewall; the rule's outcome (if any) comes first.
core::Result<std::vector<Outcome>> WithIapFirewall(ProvisionEnv& env, const IapFirewallRequest& request,
                                                   const std::function<core::Result<std::vector<Outcome>>()>& create);

// Deletes a firewall rule a run created (cleanup); 404 is already gone.
core::Result<Outcome> DeleteFirewallRule(ProvisionEnv& env, const std::string& project, const std::string& name);

// After `tpu-vm delete`: the IAP rules this run created (owned, not adopted), once its ledger holds
// no live TPU VM or queued resource that could still need them. Nothing without a ledger.
core::Result<std::vector<Outcome>> DeleteUnusedIapFirewalls(ProvisionEnv& env);

}  // namespace tputrain::workflow
