// `tpu-vm create --ray --iap-firewall check|create|skip` against `tputrain emulator start`: the
// rule IAP needs to reach Ray's dashboard is looked for, created and ledgered, adopted on a
// re-run, deleted by cleanup, and a user's own rule (made with the real gcloud) is enough.
#include <catch2/catch.hpp>

#include "emulator_env.h"

namespace tputrain::workflow::testing {
namespace {

using nlohmann::json;

const std::string kRule = "projects/p/global/firewalls/tputrain-allow-iap-default";

ProcessResult Run(EmulatorEnv& env, const std::vector<std::string>& args, int expected = 0) {
  auto result = env.Tputrain(args);
  std::string command = "tputrain";
  for (const auto& arg : args) command += " " + arg;
  INFO(command << "\nstdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE(result.exit_code == expected);
  return result;
}

// A TPU VM with Ray; --async returns once the VM's create has started (paper hosts never boot).
std::vector<std::string> CreateRay(const std::string& name, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"tpu-vm", "create", name,         "--project",
                                   "p",      "--zone", "us-east5-a", "--accelerator-type",
                                   "v5p-8",  "--ray",  "--async"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

int Posts(EmulatorEnv& env, const std::string& path) {
  int count = 0;
  for (const auto& request : env.Requests()) {
    if (request.value("method", "") == "POST" && request.value("path", "") == path) ++count;
  }
  return count;
}

TEST_CASE("--iap-firewall: check warns with the command, create makes and ledgers the rule, cleanup deletes it") {
  EmulatorEnv env;
  REQUIRE(env.ready());

  auto checked = Run(env, CreateRay("a"));
  CHECK(checked.err.find("no firewall rule on network default admits IAP (35.235.240.0/20) to tcp:8265") !=
        std::string::npos);
  CHECK(checked.err.find("gcloud compute firewall-rules create tputrain-allow-iap-default --project p --network "
                         "default --direction INGRESS --allow tcp:8265 --source-ranges 35.235.240.0/20") !=
        std::string::npos);
  CHECK(env.State()["firewalls"].empty());

  auto dry = Run(env, CreateRay("b", {"--iap-firewall", "create", "--dry-run"}));
  CHECK(dry.out.find("POST http://") != std::string::npos);
  CHECK(dry.out.find("/compute/v1/projects/p/global/firewalls\n") != std::string::npos);
  CHECK(env.State()["firewalls"].empty());

  auto created = Run(env, CreateRay("b", {"--iap-firewall", "create", "--format", "json"}));
  auto outcomes = json::parse(created.out);
  INFO(created.out);
  CHECK(outcomes.dump().find("firewall-rule") != std::string::npos);
  auto rule = env.State()["firewalls"][kRule];
  CHECK(rule["sourceRanges"] == json::array({"35.235.240.0/20"}));
  CHECK(rule["allowed"] == json::parse(R"([{"IPProtocol":"tcp","ports":["8265"]}])"));

  // A re-run finds tputrain's rule, the run's own, and resumes it: one insert in all.
  auto again = Run(env, CreateRay("c", {"--iap-firewall", "create"}));
  CHECK(again.out.find("resumed") != std::string::npos);
  CHECK(Posts(env, "/compute/v1/projects/p/global/firewalls") == 2);  // the first, and the re-run's 409

  // Now `check` is silent, and `skip` does not even look.
  auto quiet = Run(env, CreateRay("d"));
  CHECK(quiet.err.find("no firewall rule") == std::string::npos);
  const auto lists = env.Requests().size();
  Run(env, CreateRay("e", {"--iap-firewall", "skip"}));
  int firewall_calls = 0;
  auto requests = env.Requests();
  for (size_t i = lists; i < requests.size(); ++i) {
    if (requests[i].value("path", "").find("/firewalls") != std::string::npos) ++firewall_calls;
  }
  CHECK(firewall_calls == 0);

  auto runs = Run(env, {"runs", "show", "--format", "json"});
  CHECK(runs.out.find("firewall-rule") != std::string::npos);

  Run(env, {"cleanup", "--yes"});
  CHECK(env.State()["firewalls"].empty());
  CHECK(env.State()["tpuNodes"].empty());
}

TEST_CASE("--iap-firewall: tpu-vm delete takes the run's rule with its last TPU VM, never an adopted one") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  Run(env, CreateRay("a", {"--iap-firewall", "create", "--run", "r1"}));
  Run(env, CreateRay("b", {"--iap-firewall", "create", "--run", "r1"}));
  REQUIRE(env.State()["firewalls"].contains(kRule));
  const std::vector<std::string> zone = {"--project", "p", "--zone", "us-east5-a", "--yes", "--run", "r1"};
  auto first = std::vector<std::string>{"tpu-vm", "delete", "a"};
  first.insert(first.end(), zone.begin(), zone.end());
  Run(env, first);
  CHECK(env.State()["firewalls"].contains(kRule));  // b may still need it
  auto last = std::vector<std::string>{"tpu-vm", "delete", "b"};
  last.insert(last.end(), zone.begin(), zone.end());
  auto deleted = Run(env, last);
  CHECK(deleted.out.find("firewall-rule") != std::string::npos);
  CHECK(env.State()["firewalls"].empty());

  // Another run's rule, adopted by r2, stays when r2's TPU VM goes.
  Run(env, CreateRay("c", {"--iap-firewall", "create", "--run", "r1"}));
  Run(env, CreateRay("d", {"--iap-firewall", "create", "--run", "r2"}));
  auto other = std::vector<std::string>{"tpu-vm", "delete",     "d",     "--project", "p",
                                        "--zone", "us-east5-a", "--yes", "--run",     "r2"};
  Run(env, other);
  CHECK(env.State()["firewalls"].contains(kRule));
}

TEST_CASE("--iap-firewall: a user's rule made with gcloud is enough; bad values are exit 2 before any call") {
  EmulatorEnv env;
  REQUIRE(env.ready());
  auto made = env.Gcloud({"compute", "firewall-rules", "create", "iap-wide", "--network", "default", "--allow",
                          "tcp:8000-9000", "--source-ranges", "35.235.0.0/16"});
  INFO(made.err);
  REQUIRE(made.exit_code == 0);
  auto created = Run(env, CreateRay("a", {"--iap-firewall", "create"}));
  CHECK(created.err.find("no firewall rule") == std::string::npos);
  CHECK(env.State()["firewalls"].size() == 1);  // the user's, nothing of tputrain's
  CHECK_FALSE(env.State()["firewalls"].contains(kRule));

  const auto before = env.Requests().size();
  auto bad = Run(env, CreateRay("b", {"--iap-firewall", "yes"}), 2);
  CHECK(bad.err.find("--iap-firewall: expected check, create or skip, got 'yes'") != std::string::npos);
  auto without_ray = Run(env,
                         {"tpu-vm", "create", "b", "--project", "p", "--zone", "us-east5-a", "--accelerator-type",
                          "v5p-8", "--iap-firewall", "create"},
                         2);
  CHECK(without_ray.err.find("--iap-firewall: only with --ray") != std::string::npos);
  CHECK(env.Requests().size() == before);
}

}  // namespace
}  // namespace tputrain::workflow::testing
