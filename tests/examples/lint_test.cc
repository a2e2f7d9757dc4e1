// The examples/ scripts and CI pipelines, checked without running them: every script parses with
// `bash -n` and passes shellcheck (Debian's package); each pipeline file parses as YAML, has the
// jobs issue 35 asks for, and the shell of every `run:` (GitHub) or `script:` (GitLab) step passes
// `bash -n` and shellcheck too. Running the scripts is examples_integration_test's job.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(TPUTRAIN_SOURCE_DIR) / "examples";

std::vector<fs::path> Scripts() {
  std::vector<fs::path> scripts;
  for (const auto& entry : fs::directory_iterator(kExamples)) {
    if (entry.path().extension() == ".sh") scripts.push_back(entry.path());
  }
  std::sort(scripts.begin(), scripts.end());
  return scripts;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// bash -n and shellcheck on `file`; their output when either complains.
std::string ShellProblems(const fs::path& file) {
  std::string problems;
  auto parsed = RunProcess({{"bash", "-n", file.string()}});
  if (parsed.exit_code != 0) problems += "bash -n: " + parsed.err;
  auto checked = RunProcess({{"shellcheck", "--shell=bash", "--severity=style", file.string()}});
  if (checked.exit_code == 127 || (checked.exit_code != 0 && checked.out.empty())) {
    FAIL("shellcheck did not run (scripts/install-deps.sh installs it): " << checked.err);
  }
  if (checked.exit_code != 0) problems += "shellcheck:\n" + checked.out;
  return problems;
}

// A pipeline step's shell as a file of its own, for bash -n and shellcheck.
struct StepFile {
  fs::path path;
  StepFile(const std::string& name, const std::string& shell) {
    std::string pattern = "/tmp/tputrain-example-step-XXXXXX";
    int fd = mkstemp(pattern.data());
    REQUIRE(fd >= 0);
    close(fd);
    path = pattern;
    std::ofstream(path) << "#!/usr/bin/env bash\n# " << name << "\n" << shell << "\n";
  }
  ~StepFile() {
    std::error_code ignored;
    fs::remove(path, ignored);
  }
};

void CheckStep(const std::string& name, const std::string& shell) {
  INFO(name << ":\n" << shell);
  // Values from ${{ }} go through env: (GitHub's advice against script injection), so that every
  // step is plain shell.
  CHECK(shell.find("${{") == std::string::npos);
  StepFile file(name, shell);
  CHECK(ShellProblems(file.path).empty());
}

// Every script, as a pipeline's matrix names it from the repository's root.
std::vector<std::string> ScriptPaths() {
  std::vector<std::string> paths;
  for (const auto& script : Scripts()) paths.push_back("examples/" + script.filename().string());
  return paths;
}

// Every stack file beside the scripts, as a pipeline's matrix names them.
std::vector<std::string> StackPaths() {
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(kExamples)) {
    if (entry.path().extension() == ".yaml") paths.push_back("examples/" + entry.path().filename().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<std::string> MatrixScripts(const YAML::Node& matrix) {
  std::vector<std::string> paths;
  for (const auto& entry : matrix) paths.push_back(entry.as<std::string>());
  return paths;
}

// A GitLab script key: a string or a sequence of lines, run in one shell.
std::string GitlabLines(const YAML::Node& node) {
  if (!node) return "";
  if (node.IsScalar()) return node.as<std::string>() + "\n";
  std::string lines;
  for (const auto& line : node) lines += line.as<std::string>() + "\n";
  return lines;
}

TEST_CASE("every example script parses, follows the examples' conventions and passes shellcheck") {
  const auto scripts = Scripts();
  REQUIRE(scripts.size() >= 4);
  for (const auto& script : scripts) {
    INFO(script);
    const std::string text = Read(script);
    CHECK(text.rfind("#!/usr/bin/env bash\n", 0) == 0);
    CHECK((fs::status(script).permissions() & fs::perms::owner_exec) != fs::perms::none);
    CHECK(text.find("\nset -euo pipefail\n") != std::string::npos);
    // Settings come from the environment, with the project required.
    CHECK(text.find("PROJECT=${PROJECT:?") != std::string::npos);
    // One run id for every command, cleanup on exit, and the leak check after it.
    CHECK(text.find("export TPUTRAIN_PROJECT=$PROJECT TPUTRAIN_RUN=$RUN") != std::string::npos);
    CHECK(text.find("trap finish EXIT") != std::string::npos);
    CHECK(text.find("tputrain cleanup --run \"$RUN\" --yes") != std::string::npos);
    CHECK(text.find("tputrain cleanup --run \"$RUN\" --dry-run --detailed-exitcode") != std::string::npos);
    // The two rehearsal modes the CI pipelines use.
    CHECK(text.find("DRY_RUN=1") != std::string::npos);
    CHECK(text.find("PROVISION_ONLY=1") != std::string::npos);
    // No jq: values are read from --format json with sed.
    CHECK(text.find("jq ") == std::string::npos);
    CHECK(ShellProblems(script).empty());
  }
}

TEST_CASE("the GitHub Actions workflow: pull requests rehearse on the emulator, a schedule runs for real, a sweep") {
  const auto workflow = YAML::LoadFile((kExamples / "ci" / "github-actions.yml").string());
  const auto on = workflow["on"];
  REQUIRE(on.IsMap());
  CHECK(on["pull_request"]);
  CHECK(on["workflow_dispatch"]);
  REQUIRE(on["schedule"].IsSequence());
  CHECK(on["schedule"].size() == 2);
  const auto jobs = workflow["jobs"];
  REQUIRE(jobs.IsMap());
  std::map<std::string, std::string> shell_of;  // job → its run steps, joined
  int steps = 0;
  for (const auto& job : jobs) {
    const std::string name = job.first.as<std::string>();
    REQUIRE(job.second["steps"].IsSequence());
    for (const auto& step : job.second["steps"]) {
      if (!step["run"]) continue;
      const std::string shell = step["run"].as<std::string>();
      CheckStep(name + ": " + step["name"].as<std::string>(""), shell);
      shell_of[name] += shell;
      ++steps;
    }
  }
  CHECK(steps >= 10);
  REQUIRE(shell_of.count("rehearse") == 1);
  CHECK(jobs["rehearse"]["if"].as<std::string>() == "github.event_name == 'pull_request'");
  CHECK(MatrixScripts(jobs["rehearse"]["strategy"]["matrix"]["example"]) == ScriptPaths());
  CHECK(shell_of["rehearse"].find("tputrain emulator start") != std::string::npos);
  CHECK(shell_of["rehearse"].find("DRY_RUN=1 bash \"$EXAMPLE\"") != std::string::npos);
  CHECK(shell_of["rehearse"].find("--dry-run --detailed-exitcode") != std::string::npos);
  // Every stack file rehearsed: its plan, up twice, down, the leak check.
  REQUIRE(shell_of.count("rehearse-stacks") == 1);
  CHECK(MatrixScripts(jobs["rehearse-stacks"]["strategy"]["matrix"]["stack"]) == StackPaths());
  CHECK(shell_of["rehearse-stacks"].find("tputrain up -f \"$STACK\" --dry-run") != std::string::npos);
  CHECK(shell_of["rehearse-stacks"].find("tputrain down -f \"$STACK\" --yes") != std::string::npos);
  CHECK(shell_of["rehearse-stacks"].find("--dry-run --detailed-exitcode") != std::string::npos);
  // The real run: credentials from the secret store, `up`, then down and the ledger whatever happened.
  CHECK(shell_of["real"].find("tputrain up -f \"$STACK\"") != std::string::npos);
  const auto real = jobs["real"]["steps"];
  bool secret = false;
  bool always_cleanup = false;
  bool ledger_artifact = false;
  for (const auto& step : real) {
    if (step["env"] && step["env"]["GCP_SA_KEY"])
      secret = step["env"]["GCP_SA_KEY"].as<std::string>() == "${{ secrets.GCP_SA_KEY }}";
    const bool always = step["if"] && step["if"].as<std::string>() == "always()";
    if (always && step["run"] &&
        step["run"].as<std::string>().find("tputrain down -f \"$STACK\" --yes") != std::string::npos)
      always_cleanup = true;
    if (always && step["uses"] && step["uses"].as<std::string>().rfind("actions/upload-artifact", 0) == 0)
      ledger_artifact = true;
  }
  CHECK(secret);
  CHECK(always_cleanup);
  CHECK(ledger_artifact);
  CHECK(shell_of["leak-sweep"].find("tputrain cleanup --scan") != std::string::npos);
}

TEST_CASE("the GitLab CI file: merge requests rehearse on the emulator, a schedule runs for real, a sweep") {
  const auto pipeline = YAML::LoadFile((kExamples / "ci" / "gitlab-ci.yml").string());
  REQUIRE(pipeline.IsMap());
  std::map<std::string, YAML::Node> jobs;
  for (const auto& item : pipeline) {
    if (item.second.IsMap() && (item.second["script"] || item.second["before_script"]))
      jobs[item.first.as<std::string>()] = item.second;
  }
  REQUIRE(jobs.count(".tputrain") == 1);
  for (const char* name : {"rehearse", "rehearse-stacks", "real", "leak-sweep"}) {
    INFO(name);
    REQUIRE(jobs.count(name) == 1);
    CHECK(jobs[name]["extends"].as<std::string>() == ".tputrain");
  }
  for (const auto& [name, job] : jobs) {
    // before_script and script share a shell; after_script has one of its own.
    const YAML::Node before = job["before_script"] ? job["before_script"] : jobs[".tputrain"]["before_script"];
    CheckStep(name + ": before_script + script", GitlabLines(before) + GitlabLines(job["script"]));
    if (job["after_script"]) CheckStep(name + ": after_script", GitlabLines(job["after_script"]));
  }
  const std::string rehearse = GitlabLines(jobs["rehearse"]["script"]);
  CHECK(jobs["rehearse"]["rules"][0]["if"].as<std::string>() == "$CI_PIPELINE_SOURCE == \"merge_request_event\"");
  CHECK(MatrixScripts(jobs["rehearse"]["parallel"]["matrix"][0]["EXAMPLE"]) == ScriptPaths());
  CHECK(rehearse.find("tputrain emulator start") != std::string::npos);
  CHECK(rehearse.find("DRY_RUN=1 bash \"$EXAMPLE\"") != std::string::npos);
  CHECK(rehearse.find("--dry-run --detailed-exitcode") != std::string::npos);
  const std::string stacks = GitlabLines(jobs["rehearse-stacks"]["script"]);
  CHECK(MatrixScripts(jobs["rehearse-stacks"]["parallel"]["matrix"][0]["STACK"]) == StackPaths());
  CHECK(stacks.find("tputrain up -f \"$STACK\" --dry-run") != std::string::npos);
  CHECK(stacks.find("tputrain down -f \"$STACK\" --yes") != std::string::npos);
  CHECK(jobs["real"]["variables"]["GOOGLE_APPLICATION_CREDENTIALS"].as<std::string>() == "$GCP_SA_KEY");
  CHECK(GitlabLines(jobs["real"]["script"]).find("tputrain up -f \"$STACK\"") != std::string::npos);
  CHECK(GitlabLines(jobs["real"]["after_script"]).find("tputrain down -f \"$STACK\" --yes") != std::string::npos);
  CHECK(jobs["real"]["artifacts"]["when"].as<std::string>() == "always");
  CHECK(GitlabLines(jobs["leak-sweep"]["script"]).find("tputrain cleanup --scan") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
