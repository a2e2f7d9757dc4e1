// The IAP firewall rule of a `tpu-vm create --ray`: looked for, created on request (ledgered),
// or printed as the command that would create it.
#include "tputrain/workflow/iap_firewall.h"

#include "provision_steps.h"

namespace tputrain::workflow {
namespace {

using gcp::compute::Client;

std::string RuleKey(const std::string& project, const std::string& name) {
  return "projects/" + project + "/global/firewalls/" + name;
}

// The operation to wait for, or "" when it came back DONE; a failed DONE one is its error.
core::Result<std::string> Pending(const core::Result<gcp::compute::Operation>& op) {
  if (!op) return core::Fail(op.error());
  if (op->error) return core::Fail(*op->error);
  return op->done() ? std::string() : op->name;
}

core::Status Wait(ProvisionEnv& env, Client& client, const std::string& project, const std::string& operation,
                  const std::string& task) {
  env.reporter.Progress(task, "waiting for " + operation);
  auto done = gcp::operations::Wait(gcp::compute::GlobalOperationWaiting(client, project, operation), env.poll, env);
  if (!done) return core::Fail(done.error());
  return {};
}

std::string PortText(int port) { return "tcp:" + std::to_string(port); }

core::Result<Outcome> CreateRule(ProvisionEnv& env, const IapFirewallRequest& request) {
  Client client(env.transport, env.endpoints.compute);
  const auto rule = IapFirewallRule(request);
  const std::string task = "firewall-rule " + rule.name;
  internal::CreateSteps steps;
  steps.kind = ResourceKind::kFirewallRule;
  steps.name = rule.name;
  steps.resource = RuleKey(request.project, rule.name);
  steps.details = {{"project", request.project},
                   {"firewall", rule.name},
                   {"network", request.network},
                   {"port", request.port},
                   {"source_range", kIapSourceRange}};
  steps.request = client.BuildInsertFirewall(request.project, rule);
  steps.post = [&]() { return Pending(client.InsertFirewall(request.project, rule)); };
  steps.wait = [&](const std::string& op) { return Wait(env, client, request.project, op, task); };
  steps.inspect = [&]() -> core::Result<internal::Existing> {
    auto existing = client.GetFirewall(request.project, rule.name);
    if (!existing) return core::Fail(existing.error());
    internal::Existing out;
    if (!AdmitsIap(*existing, request.network, request.port)) {
      out.differences.push_back("it does not admit " + std::string(kIapSourceRange) + " to " + PortText(request.port) +
                                " on network " + request.network);
    }
    return out;  // firewall rules have no labels: no run label to read
  };
  steps.ready = [] { return core::Result<bool>(true); };  // a rule has no state but existing
  return internal::RunCreate(env, steps);
}

}  // namespace

std::string IapFirewallRuleName(const std::string& network) {
  std::string name = "tputrain-allow-iap-" + gcp::compute::NetworkName(network);
  if (name.size() > 63) name.resize(63);
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name;
}

gcp::compute::Firewall IapFirewallRule(const IapFirewallRequest& request) {
  gcp::compute::Firewall rule;
  rule.name = IapFirewallRuleName(request.network);
  rule.network = request.network;
  rule.description = "IAP TCP forwarding to tcp:" + std::to_string(request.port) + " (made by tputrain)";
  rule.allowed = {{"tcp", {std::to_string(request.port)}}};
  rule.source_ranges = {kIapSourceRange};
  return rule;
}

std::string GcloudIapFirewallCommand(const IapFirewallRequest& request) {
  return "gcloud compute firewall-rules create " + IapFirewallRuleName(request.network) + " --project " +
         request.project + " --network " + request.network + " --direction INGRESS --allow " + PortText(request.port) +
         " --source-ranges " + kIapSourceRange;
}

core::Result<IapFirewallCheck> EnsureIapFirewall(ProvisionEnv& env, const IapFirewallRequest& request) {
  IapFirewallCheck check;
  if (request.mode == IapFirewallMode::kSkip) return check;
  if (env.dry_run != nullptr) {  // no reads in a dry run: a create is shown, a check is not made
    if (request.mode == IapFirewallMode::kCreate) {
      auto outcome = CreateRule(env, request);
      if (!outcome) return core::Fail(outcome.error());
      check.outcome = *outcome;
    }
    return check;
  }
  Client client(env.transport, env.endpoints.compute);
  auto rules = client.ListFirewalls(request.project);
  if (!rules && request.mode == IapFirewallMode::kCheck && rules.error().kind != core::ErrorKind::kCancelled) {
    // A check is advice: a caller who may create TPU VMs but not list firewalls (or whose
    // Compute API is off) still gets them, with the command to run if the tunnel is refused.
    env.reporter.Warn("could not check the firewall rules for IAP (" + rules.error().message +
                      "); if the tunnel is refused (4003), allow IAP with: " + GcloudIapFirewallCommand(request));
    return check;
  }
  if (!rules) return core::Fail(rules.error());
  const std::string own = IapFirewallRuleName(request.network);
  const IapAccess access = IapAccessOf(*rules, request.network, request.port);
  // tputrain's own rule has the default priority (1000): it beats a deny only of a higher number.
  const gcp::compute::Firewall defaults;
  if (access.denying != nullptr &&
      (request.mode != IapFirewallMode::kCreate || access.denying->priority <= defaults.priority)) {
    env.reporter.Warn("firewall rule " + access.denying->name + " (priority " +
                      std::to_string(access.denying->priority) + ") denies IAP (" + kIapSourceRange + ") " +
                      PortText(request.port) + " on network " + request.network +
                      " ahead of every rule that allows it, so tputrain cannot reach Ray through IAP; change it, or "
                      "allow IAP at a lower priority number");
    return check;
  }
  const auto* admitting = access.admitting;
  // tputrain's own rule goes through the create, so that this run's ledger records it (adopted).
  if (admitting != nullptr && !(request.mode == IapFirewallMode::kCreate && admitting->name == own)) {
    check.admitted_by = admitting->name;
    env.reporter.Debug("firewall rule " + admitting->name + " admits IAP to " + PortText(request.port));
    return check;
  }
  if (request.mode == IapFirewallMode::kCheck) {
    env.reporter.Warn("no firewall rule on network " + request.network + " admits IAP (" + kIapSourceRange + ") to " +
                      PortText(request.port) + ", so tputrain cannot reach Ray through IAP; create one: " +
                      GcloudIapFirewallCommand(request) + " (or pass --iap-firewall create)");
    return check;
  }
  auto outcome = CreateRule(env, request);
  if (!outcome) return core::Fail(outcome.error());
  check.admitted_by = outcome->name;
  check.outcome = *outcome;
  return check;
}

core::Result<std::vector<Outcome>> WithIapFirewall(ProvisionEnv& env, const IapFirewallRequest& request,
                                                   const std::function<core::Result<std::vector<Outcome>>()>& create) {
  auto firewall = EnsureIapFirewall(env, request);
  if (!firewall) return core::Fail(firewall.error());
  auto outcomes = create();
  if (!outcomes) return outcomes;
  if (firewall->outcome) outcomes->insert(outcomes->begin(), *firewall->outcome);
  return outcomes;
}

core::Result<Outcome> DeleteFirewallRule(ProvisionEnv& env, const std::string& project, const std::string& name) {
  Client client(env.transport, env.endpoints.compute);
  const std::string task = "firewall-rule " + name;
  internal::DeleteSteps steps{ResourceKind::kFirewallRule,
                              name,
                              RuleKey(project, name),
                              client.BuildDeleteFirewall(project, name),
                              nullptr,
                              nullptr};
  steps.send = [&]() { return Pending(client.DeleteFirewall(project, name)); };
  steps.wait = [&](const std::string& op) { return Wait(env, client, project, op, task); };
  return internal::RunDelete(env, steps);
}

core::Result<std::vector<Outcome>> DeleteUnusedIapFirewalls(ProvisionEnv& env) {
  std::vector<Outcome> outcomes;
  if (env.ledger == nullptr || env.run_id.empty()) return outcomes;
  auto ledger = env.ledger->Load(env.run_id);
  if (!ledger) return outcomes;  // no ledger for this run: nothing of its to delete
  std::vector<state::LedgerEntry> rules;
  for (const auto* entry : ledger->Live()) {
    if (entry->kind == ResourceKind::kTpuVm || entry->kind == ResourceKind::kQueuedResource) return outcomes;
    if (entry->kind == ResourceKind::kFirewallRule && entry->owned) rules.push_back(*entry);
  }
  for (const auto& entry : rules) {
    const std::string project = entry.details.value("project", ""), name = entry.details.value("firewall", "");
    if (project.empty() || name.empty()) continue;
    auto outcome = DeleteFirewallRule(env, project, name);
    if (!outcome) return core::Fail(outcome.error());
    outcomes.push_back(*outcome);
  }
  return outcomes;
}

}  // namespace tputrain::workflow
