#include "tputrain/workflow/iap_firewall.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "testing/fake_transport.h"
#include "tputrain/core/reporter.h"
#include "tputrain/emulator/schema.h"

namespace tputrain::workflow {
namespace {

using gcp::compute::Direction;
using gcp::compute::Firewall;
using tputrain::testing::FakeClock;
using tputrain::testing::FakeTransport;
using tputrain::testing::JsonReply;

// A rule that admits IAP to 8265 on default; each case changes one thing.
Firewall IapRule() {
  Firewall rule;
  rule.name = "allow-iap";
  rule.network = "https://www.googleapis.com/compute/v1/projects/p/global/networks/default";
  rule.allowed = {{"tcp", {"8265"}}};
  rule.source_ranges = {"35.235.240.0/20"};
  return rule;
}

TEST_CASE("IPv4 ranges: parsed, masked, contained") {
  auto iap = ParseIpv4Range("35.235.240.0/20");
  REQUIRE(iap);
  CHECK(iap->prefix == 20);
  CHECK(RangeContains(*ParseIpv4Range("0.0.0.0/0"), *iap));
  CHECK(RangeContains(*ParseIpv4Range("35.0.0.0/8"), *iap));
  CHECK(RangeContains(*ParseIpv4Range("35.235.240.0/20"), *iap));
  CHECK(RangeContains(*ParseIpv4Range("35.235.255.255/20"), *iap));      // host bits are masked, as Compute does
  CHECK_FALSE(RangeContains(*ParseIpv4Range("35.235.240.0/24"), *iap));  // a part of IAP's range is not enough
  CHECK_FALSE(RangeContains(*ParseIpv4Range("10.0.0.0/8"), *iap));
  CHECK(ParseIpv4Range("10.1.2.3")->prefix == 32);
  for (const char* bad : {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.4/33", "1.2.3.4/", "a.b.c.d", "::/0",
                          "2600:2d00::/32", "1..2.3", "1.2.3.4/-1"}) {
    CHECK_FALSE(ParseIpv4Range(bad));
  }
}

TEST_CASE("ports: none means all; single ports and ranges, bounds included") {
  CHECK(PortsAdmit({}, 8265));
  CHECK(PortsAdmit({"8265"}, 8265));
  CHECK(PortsAdmit({"22", "8265"}, 8265));
  CHECK(PortsAdmit({"8000-9000"}, 8265));
  CHECK(PortsAdmit({"8265-8265"}, 8265));
  CHECK(PortsAdmit({"1-65535"}, 8265));
  CHECK_FALSE(PortsAdmit({"22"}, 8265));
  CHECK_FALSE(PortsAdmit({"8266-9000"}, 8265));
  CHECK_FALSE(PortsAdmit({"80", "443"}, 8265));
  CHECK_FALSE(PortsAdmit({"x"}, 8265));
}

TEST_CASE("a rule admits IAP: enabled ingress on the network, IAP's whole range, tcp to the port, no targets") {
  CHECK(AdmitsIap(IapRule(), "default", 8265));
  CHECK(AdmitsIap(IapRule(), "projects/p/global/networks/default", 8265));

  SECTION("wider sources and other ways to say tcp and the port") {
    auto rule = IapRule();
    rule.source_ranges = {"10.0.0.0/8", "0.0.0.0/0"};
    CHECK(AdmitsIap(rule, "default", 8265));
    rule.allowed = {{"all", {}}};
    CHECK(AdmitsIap(rule, "default", 8265));
    rule.allowed = {{"6", {"8000-9000"}}};
    CHECK(AdmitsIap(rule, "default", 8265));
    rule.allowed = {{"udp", {}}, {"tcp", {}}};
    CHECK(AdmitsIap(rule, "default", 8265));
    rule.source_ranges = {"2600::/16", "35.235.0.0/16"};  // an IPv6 range beside it is ignored
    CHECK(AdmitsIap(rule, "default", 8265));
  }
  SECTION("what does not count") {
    auto rule = IapRule();
    rule.disabled = true;
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
    rule = IapRule();
    rule.direction = Direction::kEgress;
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
    CHECK_FALSE(AdmitsIap(IapRule(), "other", 8265));
    CHECK_FALSE(AdmitsIap(IapRule(), "default", 22));
    rule = IapRule();
    rule.target_tags = {"ray-head"};  // tputrain's TPU VMs have no tags
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
    rule = IapRule();
    rule.target_service_accounts = {"sa@p.iam.gserviceaccount.com"};
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
    rule = IapRule();
    rule.source_ranges = {"35.235.240.0/21"};  // half of IAP's range
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
    rule.source_ranges = {};
    rule.source_tags = {"bastion"};
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
    rule = IapRule();
    rule.allowed = {{"udp", {"8265"}}, {"icmp", {}}};
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
    rule = IapRule();
    rule.allowed = {};
    rule.denied = {{"tcp", {"8265"}}};
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
    rule = IapRule();
    rule.allowed = {{"tcp", {"22", "3389"}}};  // the usual IAP-for-ssh rule
    CHECK_FALSE(AdmitsIap(rule, "default", 8265));
  }
  SECTION("the first admitting rule of a list") {
    auto ssh = IapRule();
    ssh.name = "allow-iap-ssh";
    ssh.allowed = {{"tcp", {"22"}}};
    auto open = IapRule();
    open.name = "open";
    open.source_ranges = {"0.0.0.0/0"};
    open.allowed = {{"all", {}}};
    std::vector<Firewall> rules = {ssh, open};
    REQUIRE(RuleAdmittingIap(rules, "default", 8265) != nullptr);
    CHECK(RuleAdmittingIap(rules, "default", 8265)->name == "open");
    CHECK(RuleAdmittingIap({ssh}, "default", 8265) == nullptr);
  }
}

TEST_CASE("a deny rule of IAP's range beats an allow by priority, and at equal priority") {
  auto allow = IapRule();
  allow.name = "allow-iap";
  allow.priority = 1000;
  auto deny = IapRule();
  deny.name = "deny-dashboard";
  deny.allowed = {};
  deny.denied = {{"tcp", {"8000-9000"}}};
  deny.source_ranges = {"35.235.241.0/24"};  // part of IAP's range is enough to break tunnels
  for (int priority : {900, 1000}) {
    deny.priority = priority;
    INFO(priority);
    CHECK(DeniesIap(deny, "default", 8265));
    const std::vector<Firewall> rules = {allow, deny};  // access points into it
    const auto access = IapAccessOf(rules, "default", 8265);
    CHECK(access.admitting == nullptr);
    REQUIRE(access.denying != nullptr);
    CHECK(access.denying->name == "deny-dashboard");
    CHECK(RuleAdmittingIap({allow, deny}, "default", 8265) == nullptr);
  }
  deny.priority = 1100;  // the allow comes first
  CHECK(IapAccessOf({deny, allow}, "default", 8265).admitting->name == "allow-iap");
  CHECK(IapAccessOf({deny}, "default", 8265).denying->name == "deny-dashboard");
  // Denies that do not touch IAP's connections: another port, another range, disabled, targeted,
  // egress, another network.
  auto other = deny;
  other.priority = 1;
  other.denied = {{"tcp", {"22"}}};
  CHECK_FALSE(DeniesIap(other, "default", 8265));
  other = deny;
  other.source_ranges = {"10.0.0.0/8"};
  CHECK_FALSE(DeniesIap(other, "default", 8265));
  other = deny;
  other.disabled = true;
  CHECK_FALSE(DeniesIap(other, "default", 8265));
  other = deny;
  other.target_tags = {"web"};
  CHECK_FALSE(DeniesIap(other, "default", 8265));
  other = deny;
  other.direction = Direction::kEgress;
  CHECK_FALSE(DeniesIap(other, "default", 8265));
  CHECK_FALSE(DeniesIap(deny, "vpc-1", 8265));
  other = deny;
  other.denied = {{"all", {}}};
  other.source_ranges = {"0.0.0.0/0"};
  CHECK(DeniesIap(other, "default", 8265));
}

TEST_CASE("--iap-firewall values, the rule's name and the gcloud command") {
  CHECK(*ParseIapFirewallMode("--iap-firewall", "check") == IapFirewallMode::kCheck);
  CHECK(*ParseIapFirewallMode("--iap-firewall", "create") == IapFirewallMode::kCreate);
  CHECK(*ParseIapFirewallMode("--iap-firewall", "skip") == IapFirewallMode::kSkip);
  auto bad = ParseIapFirewallMode("--iap-firewall", "yes");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().kind == core::ErrorKind::kInvalidArgument);
  CHECK(bad.error().message == "--iap-firewall: expected check, create or skip, got 'yes'");

  CHECK(IapFirewallRuleName("default") == "tputrain-allow-iap-default");
  CHECK(IapFirewallRuleName("projects/p/global/networks/vpc-1") == "tputrain-allow-iap-vpc-1");
  CHECK(IapFirewallRuleName(std::string(60, 'n')).size() == 63);
  CHECK(IapFirewallRuleName("n" + std::string(43, '-') + "x").back() != '-');
  CHECK(GcloudIapFirewallCommand({"p", "default", 8265, IapFirewallMode::kCheck}) ==
        "gcloud compute firewall-rules create tputrain-allow-iap-default --project p --network default --direction "
        "INGRESS --allow tcp:8265 --source-ranges 35.235.240.0/20");
  // The rule tputrain creates admits IAP by its own test, and its body is a valid Firewall.
  const IapFirewallRequest request{"p", "default", 8265, IapFirewallMode::kCreate};
  CHECK(AdmitsIap(IapFirewallRule(request), "default", 8265));
  auto schemas = emulator::SchemaSet::Builtin();
  REQUIRE(schemas);
  CHECK_FALSE(schemas->Validate("compute", "Firewall", gcp::compute::FirewallToJson(IapFirewallRule(request), "p"),
                                "compute.firewalls.insert"));
}

// Records warnings, the one line `check` may print.
struct Warnings final : core::Reporter {
  std::vector<std::string> lines;
  void Info(std::string_view) override {}
  void Warn(std::string_view message) override { lines.emplace_back(message); }
  void Progress(std::string_view, std::string_view) override {}
  void Done(std::string_view, std::string_view) override {}
  void Debug(std::string_view) override {}
};

struct Fixture {
  FakeTransport transport;
  FakeClock clock;
  Warnings reporter;
  ProvisionEnv env{testing::RuntimeOn(clock, reporter), transport, {}};
  Fixture() { env.endpoints.compute = "http://x/compute/v1/"; }
};

const std::string kSsh =
    R"({"name":"allow-ssh","network":"https://x/compute/v1/projects/p/global/networks/default","direction":"INGRESS",
        "allowed":[{"IPProtocol":"tcp","ports":["22"]}],"sourceRanges":["35.235.240.0/20"]})";

TEST_CASE("EnsureIapFirewall: check warns once with the command when no rule admits IAP, and creates nothing") {
  Fixture f;
  f.transport.On("GET", "/global/firewalls", {JsonReply(200, R"({"items":[)" + kSsh + "]}")});
  auto check = EnsureIapFirewall(f.env, {"p", "default", 8265, IapFirewallMode::kCheck});
  REQUIRE(check);
  CHECK(check->admitted_by.empty());
  CHECK_FALSE(check->outcome);
  REQUIRE(f.reporter.lines.size() == 1);
  CHECK(f.reporter.lines[0].find("gcloud compute firewall-rules create tputrain-allow-iap-default --project p") !=
        std::string::npos);
  CHECK(f.reporter.lines[0].find("--iap-firewall create") != std::string::npos);
  CHECK(f.transport.Count("POST", "/firewalls") == 0);
}

TEST_CASE("EnsureIapFirewall: a check that cannot list the rules warns and goes on; a create fails") {
  for (auto mode : {IapFirewallMode::kCheck, IapFirewallMode::kCreate}) {
    Fixture f;
    f.transport.On("GET", "/global/firewalls",
                   {JsonReply(403, R"({"error":{"code":403,"message":"Required 'compute.firewalls.list' permission",
                     "errors":[{"domain":"global","reason":"forbidden","message":"x"}]}})")});
    auto check = EnsureIapFirewall(f.env, {"p", "default", 8265, mode});
    if (mode == IapFirewallMode::kCheck) {
      REQUIRE(check);
      REQUIRE(f.reporter.lines.size() == 1);
      CHECK(f.reporter.lines[0].find("compute.firewalls.list") != std::string::npos);
      CHECK(f.reporter.lines[0].find("gcloud compute firewall-rules create") != std::string::npos);
    } else {
      REQUIRE_FALSE(check);
      CHECK(check.error().kind == core::ErrorKind::kPermissionDenied);
    }
  }
}

TEST_CASE("EnsureIapFirewall: a user's rule that admits IAP is enough, for check and create alike") {
  for (auto mode : {IapFirewallMode::kCheck, IapFirewallMode::kCreate}) {
    Fixture f;
    f.transport.On(
        "GET", "/global/firewalls",
        {JsonReply(200, R"({"items":[)" + kSsh +
                            R"(,{"name":"everything","sourceRanges":["0.0.0.0/0"],"allowed":[{"IPProtocol":"all"}],
                        "network":"https://x/compute/v1/projects/p/global/networks/default"}]})")});
    auto check = EnsureIapFirewall(f.env, {"p", "default", 8265, mode});
    REQUIRE(check);
    CHECK(check->admitted_by == "everything");
    CHECK(f.reporter.lines.empty());
    CHECK(f.transport.Count("POST", "/firewalls") == 0);
  }
}

TEST_CASE("EnsureIapFirewall: a deny of IAP's range ahead of the allow is warned of, and no useless rule made") {
  const std::string rules =
      R"({"items":[{"name":"everything","sourceRanges":["0.0.0.0/0"],"allowed":[{"IPProtocol":"all"}],"priority":1000,
          "network":"https://x/compute/v1/projects/p/global/networks/default"},
         {"name":"no-dashboards","sourceRanges":["0.0.0.0/0"],"denied":[{"IPProtocol":"tcp","ports":["8265"]}],
          "priority":500,"network":"https://x/compute/v1/projects/p/global/networks/default"}]})";
  for (auto mode : {IapFirewallMode::kCheck, IapFirewallMode::kCreate}) {
    Fixture f;
    f.transport.On("GET", "/global/firewalls", {JsonReply(200, rules)});
    auto check = EnsureIapFirewall(f.env, {"p", "default", 8265, mode});
    REQUIRE(check);
    CHECK(check->admitted_by.empty());
    REQUIRE(f.reporter.lines.size() == 1);
    CHECK(f.reporter.lines[0].find("firewall rule no-dashboards (priority 500) denies IAP (35.235.240.0/20)") !=
          std::string::npos);
    CHECK(f.transport.Count("POST", "/firewalls") == 0);  // an allow at priority 1000 would lose to it
  }
}

TEST_CASE("EnsureIapFirewall: create inserts tputrain's rule and waits for its global operation") {
  Fixture f;
  f.transport.On("GET", "/global/firewalls", {JsonReply(200, R"({"kind":"compute#firewallList"})")});
  f.transport.On("POST", "/global/firewalls",
                 {JsonReply(200, R"({"kind":"compute#operation","name":"op-1","status":"RUNNING"})")});
  f.transport.On(
      "GET", "/global/operations/op-1",
      {JsonReply(200, R"({"name":"op-1","status":"RUNNING"})"), JsonReply(200, R"({"name":"op-1","status":"DONE"})")});
  auto check = EnsureIapFirewall(f.env, {"p", "default", 8265, IapFirewallMode::kCreate});
  REQUIRE(check);
  REQUIRE(check->outcome);
  CHECK(check->outcome->kind == ResourceKind::kFirewallRule);
  CHECK(check->outcome->action == OutcomeAction::kCreated);
  CHECK(check->outcome->resource == "projects/p/global/firewalls/tputrain-allow-iap-default");
  CHECK(f.transport.Count("GET", "/global/operations/op-1") == 2);
  CHECK_FALSE(f.clock.sleeps().empty());  // polled with back-off, not in a loop
  auto posted = nlohmann::json::parse(f.transport.requests()[1].body);
  CHECK(posted["sourceRanges"] == nlohmann::json::array({"35.235.240.0/20"}));
}

TEST_CASE("EnsureIapFirewall: a failed insert operation is the create's error") {
  Fixture f;
  f.transport.On("GET", "/global/firewalls", {JsonReply(200, "{}")});
  f.transport.On("POST", "/global/firewalls",
                 {JsonReply(200, R"({"name":"op-2","status":"DONE","httpErrorStatusCode":403,
                   "error":{"errors":[{"code":"FORBIDDEN","message":"Required 'compute.firewalls.create' permission"}]}})")});
  auto check = EnsureIapFirewall(f.env, {"p", "default", 8265, IapFirewallMode::kCreate});
  REQUIRE_FALSE(check);
  CHECK(check.error().kind == core::ErrorKind::kPermissionDenied);
  CHECK(check.error().message.find("compute.firewalls.create") != std::string::npos);
}

TEST_CASE("EnsureIapFirewall: skip sends nothing; --dry-run collects a create and makes no check") {
  Fixture f;
  CHECK(EnsureIapFirewall(f.env, {"p", "default", 8265, IapFirewallMode::kSkip}));
  std::vector<http::Request> dry;
  f.env.dry_run = &dry;
  CHECK(EnsureIapFirewall(f.env, {"p", "default", 8265, IapFirewallMode::kCheck}));
  CHECK(dry.empty());
  auto created = EnsureIapFirewall(f.env, {"p", "default", 8265, IapFirewallMode::kCreate});
  REQUIRE(created);
  REQUIRE(created->outcome);
  CHECK(created->outcome->action == OutcomeAction::kWouldSend);
  REQUIRE(dry.size() == 1);
  CHECK(dry[0].url == "http://x/compute/v1/projects/p/global/firewalls");
  CHECK(f.transport.requests().empty());
  CHECK(f.reporter.lines.empty());
}

}  // namespace
}  // namespace tputrain::workflow
