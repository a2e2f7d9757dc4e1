// The rehearsal job of each CI pipeline in examples/ci run as its CI would run it, against the
// emulator it starts itself: the steps' shell in order, with the job's variables, each pipeline's
// way of passing values between steps, and one example of its matrix. The job runs in a PID and
// mount namespace of its own, as in a CI container: a private /tmp, and whatever it leaves running
// (the emulator) ends with it. Two things stand in for the CI: the checkout (the workspace holds a
// copy of this repository's examples/) and the step that installs tputrain's .deb (the built
// binary is on PATH). The YAML and shell syntax of every job are examples_lint_test's.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include "testing/scoped_process.h"

namespace tputrain::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(TPUTRAIN_SOURCE_DIR) / "examples";

// A job's workspace: the checkout (examples/ copied), its temporary directory, the driver. Not
// under /tmp, which the job gets a private one of; nor linked to the source tree, which may be
// under /tmp itself (a CI clone there once found its examples hidden by the job's /tmp).
struct Workspace {
  fs::path dir;
  Workspace() {
    std::string pattern = "/var/tmp/tputrain-pipeline-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
    fs::copy(kExamples, dir / "examples", fs::copy_options::recursive);
    fs::create_directories(dir / "_temp");
  }
  ~Workspace() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

// Single-quoted for bash.
std::string Quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs `driver` (bash) as the job: its own PID namespace (everything it started dies with it) and
// mount namespace (/tmp private), a clean environment with tputrain on PATH.
ProcessResult RunJob(const Workspace& workspace, const std::string& driver) {
  const fs::path file = workspace.dir / "_driver.sh";
  std::ofstream(file) << "set -e\nmount -t tmpfs tmpfs /tmp\ncd " << Quoted(workspace.dir.string()) << "\n" << driver;
  const std::string binary = TputrainBinary();
  ProcessOptions options;
  options.argv = {"unshare",
                  "--pid",
                  "--fork",
                  "--mount",
                  "--",
                  "env",
                  "-i",
                  "PATH=" + binary.substr(0, binary.rfind('/')) + ":/usr/sbin:/usr/bin:/sbin:/bin",
                  "HOME=" + (workspace.dir / "_home").string(),
                  "bash",
                  "--noprofile",
                  "--norc",
                  file.string()};
  return RunProcess(options, std::chrono::minutes(15));
}

std::string Tail(const std::string& text, size_t size = 6000) {
  return text.size() > size ? "..." + text.substr(text.size() - size) : text;
}

// What a job reads of its checkout must be in its workspace: a link out of it may lead under the
// /tmp the job hides.
TEST_CASE("a job's workspace holds its checkout itself, with no link leading out of it", "[integration][pipelines]") {
  Workspace workspace;
  int scripts = 0;
  for (const auto& entry : fs::recursive_directory_iterator(workspace.dir)) {
    INFO(entry.path());
    CHECK_FALSE(entry.is_symlink());
    if (entry.path().extension() == ".sh" && entry.path().parent_path() == workspace.dir / "examples") ++scripts;
  }
  CHECK(scripts == 5);
  CHECK(fs::is_regular_file(workspace.dir / "examples" / "004-ray-on-tpu-vms" / "jax_hosts.py"));  // 004's job
}

// A GitHub Actions job's steps, run as GitHub would run them, with the first entry of its matrix.
ProcessResult RunGithubJob(const std::string& job_name, const std::string& matrix_key, int expected_steps,
                           std::string& example) {
  const auto workflow = YAML::LoadFile((kExamples / "ci" / "github-actions.yml").string());
  const auto job = workflow["jobs"][job_name];
  REQUIRE(job.IsMap());
  example = job["strategy"]["matrix"][matrix_key][0].as<std::string>();
  Workspace workspace;
  // The ${{ }} expressions the job uses, as GitHub would fill them in for run 7, attempt 1.
  const std::map<std::string, std::string> context = {{"github.workspace", workspace.dir.string()},
                                                      {"github.run_id", "7"},
                                                      {"github.run_attempt", "1"},
                                                      {"matrix." + matrix_key, example},
                                                      {"vars.TPUTRAIN_DEB_URL", ""}};
  auto expand = [&](std::string value) {
    static const std::regex expression(R"(\$\{\{\s*([^}]*?)\s*\}\})");
    std::smatch match;
    while (std::regex_search(value, match, expression)) {
      const auto known = context.find(match[1].str());
      INFO("expression " << match[0].str());
      REQUIRE(known != context.end());
      value = match.prefix().str() + known->second + match.suffix().str();
    }
    return value;
  };
  std::string driver = "export RUNNER_TEMP=" + Quoted((workspace.dir / "_temp").string()) +
                       " GITHUB_ENV=" + Quoted((workspace.dir / "_temp" / "github_env").string()) + "\n" +
                       ": >\"$GITHUB_ENV\"\n";
  for (const auto& scope : {workflow["env"], job["env"]}) {
    for (const auto& variable : scope) {
      driver +=
          "export " + variable.first.as<std::string>() + "=" + Quoted(expand(variable.second.as<std::string>())) + "\n";
    }
  }
  int steps_run = 0;
  for (const auto& step : job["steps"]) {
    const std::string name = step["name"].as<std::string>(step["uses"].as<std::string>(""));
    if (step["uses"]) {
      CHECK(step["uses"].as<std::string>().rfind("actions/checkout@", 0) == 0);  // the workspace is the checkout
      continue;
    }
    if (name == "Install tputrain") continue;  // the built binary is on PATH
    REQUIRE_FALSE(step["if"]);
    REQUIRE_FALSE(step["env"]);
    const std::string file = (workspace.dir / ("_step" + std::to_string(++steps_run) + ".sh")).string();
    std::ofstream(file) << step["run"].as<std::string>();
    // What earlier steps appended to $GITHUB_ENV is in the environment of the later ones; GitHub
    // runs `shell: bash` as bash --noprofile --norc -eo pipefail.
    driver += "echo " + Quoted("::step " + name) + "\n" +
              "(while IFS= read -r line; do [ -z \"$line\" ] || export \"${line?}\"; done <\"$GITHUB_ENV\"\n"
              " exec bash --noprofile --norc -eo pipefail " +
              Quoted(file) + ")\n";
  }
  CHECK(steps_run == expected_steps);  // the emulator, the dry run, the path, the leak check
  return RunJob(workspace, driver);
}

TEST_CASE("the GitHub Actions rehearsal job runs, step by step, against the emulator it starts",
          "[integration][pipelines]") {
  std::string example;
  auto job_run = RunGithubJob("rehearse", "example", 4, example);
  INFO(example << "\n" << Tail(job_run.out) << Tail(job_run.err));
  REQUIRE(job_run.exit_code == 0);
  CHECK(job_run.out.find("POST http://127.0.0.1:") != std::string::npos);  // the dry run's requests, to the emulator
  CHECK(job_run.out.find("run rehearsal-7: cleaned up") != std::string::npos);
  CHECK(job_run.out.find("::step Leak check") != std::string::npos);
}

TEST_CASE("the GitHub Actions stack rehearsal runs up, up again and down against the emulator it starts",
          "[integration][pipelines]") {
  std::string stack;
  auto job_run = RunGithubJob("rehearse-stacks", "stack", 4, stack);
  INFO(stack << "\n" << Tail(job_run.out) << Tail(job_run.err));
  REQUIRE(job_run.exit_code == 0);
  CHECK(job_run.out.find("POST http://127.0.0.1:") != std::string::npos);  // the plan's requests
  CHECK(job_run.out.find("run rehearsal-7: down") != std::string::npos);
  CHECK(job_run.out.find("::step Leak check") != std::string::npos);
}

// A GitLab CI job's script, run as GitLab would run it, with the last entry of its matrix.
ProcessResult RunGitlabJob(const std::string& job_name, const std::string& matrix_key, std::string& example) {
  const auto pipeline = YAML::LoadFile((kExamples / "ci" / "gitlab-ci.yml").string());
  const auto job = pipeline[job_name];
  REQUIRE(job.IsMap());
  const auto examples = job["parallel"]["matrix"][0][matrix_key];
  example = examples[examples.size() - 1].as<std::string>();
  Workspace workspace;
  // GitLab's predefined variables the job reads, then the pipeline's and the job's variables, in
  // order (each may refer to those before it), then the matrix's.
  std::string driver = "export CI_PROJECT_DIR=" + Quoted(workspace.dir.string()) +
                       " CI_PIPELINE_ID=7 CI_PIPELINE_SOURCE=merge_request_event\n";
  for (const auto& scope : {pipeline["variables"], job["variables"]}) {
    for (const auto& variable : scope) {
      driver += "export " + variable.first.as<std::string>() + "=\"" + variable.second.as<std::string>() + "\"\n";
    }
  }
  driver += "export " + matrix_key + "=" + Quoted(example) + "\n";
  // before_script installs the .deb (the built binary is on PATH here); the script's lines run in
  // one shell that stops at the first failing line.
  std::string script;
  for (const auto& line : job["script"]) script += line.as<std::string>() + "\n";
  const std::string file = (workspace.dir / "_script.sh").string();
  std::ofstream(file) << script;
  driver += "exec bash --noprofile --norc -e " + Quoted(file) + "\n";
  return RunJob(workspace, driver);
}

TEST_CASE("the GitLab CI rehearsal job runs its script against the emulator it starts", "[integration][pipelines]") {
  std::string example;
  auto job_run = RunGitlabJob("rehearse", "EXAMPLE", example);
  INFO(example << "\n" << Tail(job_run.out) << Tail(job_run.err));
  REQUIRE(job_run.exit_code == 0);
  CHECK(job_run.out.find("POST http://127.0.0.1:") != std::string::npos);
  CHECK(job_run.out.find("run rehearsal-7: cleaned up") != std::string::npos);
}

TEST_CASE("the GitLab CI stack rehearsal runs up, up again and down against the emulator it starts",
          "[integration][pipelines]") {
  std::string stack;
  auto job_run = RunGitlabJob("rehearse-stacks", "STACK", stack);
  INFO(stack << "\n" << Tail(job_run.out) << Tail(job_run.err));
  REQUIRE(job_run.exit_code == 0);
  CHECK(job_run.out.find("POST http://127.0.0.1:") != std::string::npos);
  CHECK(job_run.out.find("run rehearsal-7: down") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::testing
