// The tables of a run with the long names real projects have (projects/.../clusters/.../nodePools/
// ..., principal://iam.googleapis.com/... on a bucket), against `tputrain emulator start`: on an
// 80-column terminal no line is wider than it and each resource keeps one line (long names
// shortened in their column); --format wide wraps them in their column instead; without a
// terminal the lines are whole, and --format json carries the full names.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "testing/pty_process.h"
#include "workflow/emulator_env.h"

namespace tputrain::testing {
namespace {

using nlohmann::json;
using workflow::testing::EmulatorEnv;

constexpr unsigned short kColumns = 80;
constexpr char kProject[] = "ml-platform-training-prod";
constexpr char kCluster[] = "ray-tpu-v6e-training-us-central1-prod";
constexpr char kPool[] = "tpu-v6e-16-training-slice-pool";
constexpr char kBucket[] = "ml-platform-training-prod-checkpoints-us-central1";

std::size_t Columns(const std::string& line) {
  std::size_t columns = 0;
  for (char c : line) columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return columns;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // the terminal's ONLCR
    lines.push_back(line);
  }
  return lines;
}

struct Screen {
  int exit_code = -1;
  std::vector<std::string> lines;  // stdout, as the terminal shows it
  std::string err;
};

class Run {
 public:
  Run() : env_({}, "100ms") {}
  bool ready() const { return env_.ready(); }
  EmulatorEnv& env() { return env_; }

  // tputrain ARGS with stdout on an 80-column terminal (stderr to a file, kept apart).
  Screen OnTerminal(std::vector<std::string> args, unsigned short columns = kColumns) {
    const std::string err_file = (env_.dir() / "terminal-stderr").string();
    std::vector<std::string> argv = {"/usr/bin/env", "-u", "COLUMNS"};
    std::map<std::string, std::string> variables = {{"STDERR_FILE", err_file}};
    for (const auto& [name, value] : env_.Environment()) {
      if (value) {
        variables[name] = *value;
      } else {
        argv.insert(argv.end(), {"-u", name});
      }
    }
    argv.insert(argv.end(), {"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>\"$STDERR_FILE\"", TputrainBinary()});
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--project", kProject, "--state-dir", env_.state_dir()});
    PtyProcess process(argv, variables, columns);
    process.ReadUntil("\x01 not printed", std::chrono::seconds(180));  // to the end of its output
    Screen screen;
    screen.exit_code = process.Wait();
    screen.lines = Lines(process.output());
    std::ifstream in(err_file);
    screen.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return screen;
  }

  ProcessResult Piped(std::vector<std::string> args) {
    args.insert(args.end(), {"--project", kProject});
    return env_.Tputrain(args);
  }

 private:
  EmulatorEnv env_;
};

void FitsTerminal(const Screen& screen, std::size_t columns = kColumns) {
  INFO(screen.err);
  CHECK(screen.exit_code == 0);
  for (const auto& line : screen.lines) {
    INFO(line);
    CHECK(Columns(line) <= columns);
  }
}

std::size_t Count(const std::vector<std::string>& lines, const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(), [&](const std::string& line) { return line.find(text) != std::string::npos; }));
}

TEST_CASE("runs show, cleanup (plan and results), cleanup --scan and creates fit an 80-column terminal",
          "[integration]") {
  Run run;
  REQUIRE(run.ready());
  const std::string ledgered = "--run=tables";
  // The create's own table, on the terminal.
  auto created =
      run.OnTerminal({"cluster", "create", kCluster, "--location", "us-central1", "--workload-identity", ledgered});
  FitsTerminal(created);
  CHECK(Count(created.lines, "us-central1") >= 1);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"nodepool", "create", kPool, "--cluster", kCluster, "--location", "us-central1", "--tpu-type", "v6e-16"},
           {"bucket", "create", std::string("gs://") + kBucket, "--bucket-location", "us-central1"},
           {"iam", "bind-workload-identity", "--ksa", "training-workloads/ray-ksa-maxtext", "--bucket", kBucket,
            "--role", "roles/storage.objectUser"},
           {"iam", "service-account", "create", "maxtext-training-runner", "--role", "roles/storage.objectAdmin"},
           {"tpu-vm", "create", "tpu-v5p-8-training-worker-0", "--zone", "us-east5-a", "--accelerator-type",
            "v5p-8"}}) {
    auto made = run.Piped([&] {
      auto with_run = args;
      with_run.push_back(ledgered);
      return with_run;
    }());
    INFO(args[0] << " " << args[1] << ": " << made.err);
    REQUIRE(made.exit_code == 0);
  }

  // --format json: the full names, as before.
  auto json_show = run.Piped({"runs", "show", ledgered, "--format", "json"});
  REQUIRE(json_show.exit_code == 0);
  const json ledger = json::parse(json_show.out);
  const std::size_t entries = ledger["entries"].size();
  CHECK(entries >= 7);
  const std::string pool_name =
      std::string("projects/") + kProject + "/locations/us-central1/clusters/" + kCluster + "/nodePools/" + kPool;
  std::string member_name;
  for (const auto& entry : ledger["entries"]) {
    if (entry["kind"] == "iam-member" && entry["name"].get<std::string>().find("principal://") != std::string::npos) {
      member_name = entry["name"];
    }
  }
  CHECK(json_show.out.find("\"" + pool_name + "\"") != std::string::npos);
  REQUIRE_FALSE(member_name.empty());
  CHECK(member_name.find("/subject/ns/training-workloads/sa/ray-ksa-maxtext") != std::string::npos);

  // What its TPUs cost, under the entries: a blank line, a header, a row each, the spend and its
  // caveat, and the cluster fee's when a cluster is counted (issue 33).
  const std::size_t spend_lines =
      ledger["spend"].is_null()
          ? 0
          : ledger["spend"]["resources"].size() + 4 + (ledger["spend"].value("cluster_fees", 0.0) > 0 ? 1 : 0);
  CHECK(spend_lines > 0);

  // On the terminal: a title, the header, one line per entry, none wider than 80.
  auto shown = run.OnTerminal({"runs", "show", ledgered});
  FitsTerminal(shown);
  CHECK(shown.lines.size() == entries + 2 + spend_lines);
  CHECK(Count(shown.lines, "LOCATION") == 1);
  CHECK(Count(shown.lines, "storage.objectUser for ksa training-workloads/ray-ksa-maxtext") +
            Count(shown.lines, "\u2026") >=
        1);
  CHECK(Count(shown.lines, "principal://") == 0);

  // --format wide: the full names, wrapped within their column; nothing shortened.
  auto wide = run.OnTerminal({"runs", "show", ledgered, "--format", "wide"});
  FitsTerminal(wide);
  CHECK(wide.lines.size() > entries + 2 + spend_lines);
  CHECK(Count(wide.lines, "\u2026") == 0);
  CHECK(Count(wide.lines, "principal://") == 1);

  // Without a terminal: whole lines (as long as they are), the same every run.
  auto piped = run.Piped({"runs", "show", ledgered});
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.out.find("\u2026") == std::string::npos);
  CHECK(Lines(piped.out).size() == entries + 2 + spend_lines);
  CHECK(piped.out.find(std::string(kCluster) + "/" + kPool) != std::string::npos);
  auto piped_wide = run.Piped({"runs", "show", ledgered, "--format", "wide"});
  CHECK(piped_wide.out.find(member_name) != std::string::npos);
  CHECK(piped_wide.out.find(pool_name) != std::string::npos);

  // cleanup's plan.
  auto plan = run.OnTerminal({"cleanup", ledgered, "--dry-run"});
  FitsTerminal(plan);
  CHECK(plan.lines.size() == entries + 2);
  auto plan_json = run.Piped({"cleanup", ledgered, "--dry-run", "--format", "json"});
  CHECK(plan_json.out.find("\"" + pool_name + "\"") != std::string::npos);
  CHECK(plan_json.out.find(member_name) != std::string::npos);

  // cleanup --scan: a run whose ledger is lost.
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"cluster", "create", "lost-cluster-of-a-ci-runner-that-died", "--location", "us-central1", "--tpu-type",
            "v6e-16", "--run=lost"},
           {"bucket", "create", "gs://ml-platform-training-prod-lost-checkpoints", "--run=lost"}}) {
    auto made = run.Piped(args);
    INFO(made.err);
    REQUIRE(made.exit_code == 0);
  }
  REQUIRE(std::filesystem::remove(std::filesystem::path(run.env().state_dir()) / "lost.json"));
  auto scan = run.OnTerminal({"cleanup", "--scan"});
  FitsTerminal(scan);
  CHECK(Count(scan.lines, "lost-cluster-of-a-ci-runner-that-died") + Count(scan.lines, "\u2026") >= 2);
  auto scan_json = run.Piped({"cleanup", "--scan", "--format", "json"});
  REQUIRE(scan_json.exit_code == 0);
  CHECK(scan_json.out.find("projects/" + std::string(kProject) +
                           "/locations/us-central1/clusters/lost-cluster-of-a-ci-runner-that-died/nodePools/") !=
        std::string::npos);
  auto leaked = run.OnTerminal({"cleanup", "--scan", "--delete-leaked", "--yes"});
  FitsTerminal(leaked);
  CHECK(Count(leaked.lines, "RESULT") == 1);

  // cleanup's results.
  auto cleaned = run.OnTerminal({"cleanup", ledgered, "--yes"});
  FitsTerminal(cleaned);
  CHECK(cleaned.lines.size() == entries + 3);    // and the run's TPU spend
  CHECK(Count(cleaned.lines, " spend $") == 1);  // "TPU spend", or "spend" with a cluster's fee
  CHECK(Count(cleaned.lines, "RESULT") == 1);
}

}  // namespace
}  // namespace tputrain::testing
