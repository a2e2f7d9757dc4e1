// Completion comes from the command tree: the bash script, sourced as users source it, offers
// what `tputrain __complete` computes; and the man page is generated from the same tree.
#include <catch2/catch.hpp>

#include <filesystem>

#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::RunInProcess;
using tputrain::testing::RunProcess;
using tputrain::testing::TputrainBinary;

namespace {

// Runs the bash completion function on COMP_WORDS = words, the last one being completed.
std::vector<std::string> BashComplete(const std::vector<std::string>& words) {
  std::string array;
  for (const auto& word : words) array += " '" + word + "'";
  const std::string script = "source <(tputrain completion bash) && COMP_WORDS=(" + array +
                             ") && COMP_CWORD=" + std::to_string(words.size() - 1) +
                             " && _tputrain && printf '%s\\n' \"${COMPREPLY[@]}\"";
  const std::string path = std::filesystem::path(TputrainBinary()).parent_path().string() + ":/usr/bin:/bin";
  auto result = RunProcess({.argv = {"bash", "-c", script}, .env = {{"PATH", path}}});
  REQUIRE(result.exit_code == 0);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < result.out.size()) {
    size_t end = result.out.find('\n', start);
    if (end > start) lines.push_back(result.out.substr(start, end - start));  // printf of none prints ""
    start = end + 1;
  }
  return lines;
}

bool Has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

TEST_CASE("bash completion offers subcommands, flags, catalog values and enum values") {
  CHECK(BashComplete({"tputrain", "clu"}) == std::vector<std::string>{"cluster"});
  auto cluster = BashComplete({"tputrain", "cluster", ""});
  CHECK(Has(cluster, "create"));
  CHECK(Has(cluster, "get-credentials"));
  auto tpu = BashComplete({"tputrain", "cluster", "create", "c", "--tpu-type", "v6e-1"});
  CHECK(Has(tpu, "v6e-16"));
  CHECK_FALSE(Has(tpu, "v6e-8"));
  CHECK(Has(BashComplete({"tputrain", "tpu-vm", "create", "vm", "--accelerator-type", "v5e-"}), "v5e-8"));
  CHECK(BashComplete({"tputrain", "plan", "--format", "j"}) == std::vector<std::string>{"json"});
  CHECK(Has(BashComplete({"tputrain", "submit", "--model", "llama3"}), "llama3-8b"));
  auto flags = BashComplete({"tputrain", "nodepool", "create", "p", "--num-"});
  CHECK(Has(flags, "--num-nodes"));
  CHECK(Has(flags, "--num-slices"));
  CHECK(Has(BashComplete({"tputrain", "cluster", "list", "--proj"}), "--project"));  // global flags too
  CHECK(Has(BashComplete({"tputrain", "render", "raycluster-m"}), "raycluster-maxtext"));
}

TEST_CASE("__complete says when the shell should complete file names") {
  auto files = RunInProcess({.argv = {TputrainBinary(), "__complete", "", "apply", "-f"}});
  CHECK(files.out == ":files\n");
  auto entrypoint = RunInProcess({.argv = {TputrainBinary(), "__complete", "trai", "job", "submit", "--", "python"}});
  CHECK(entrypoint.out == ":files\n");  // the entrypoint's own words are the shell's
  auto dirs = RunInProcess({.argv = {TputrainBinary(), "__complete", "", "runs", "--state-dir"}});
  CHECK(dirs.out == ":dirs\n");
  auto values = RunInProcess({.argv = {TputrainBinary(), "__complete", "", "--format"}});
  CHECK(values.out == "table\nwide\njson\nyaml\n:none\n");
  for (const char* shell : {"zsh", "fish"}) {
    auto script = RunInProcess({.argv = {TputrainBinary(), "completion", shell}});
    CHECK(script.exit_code == 0);
    CHECK(script.out.find("__complete") != std::string::npos);
  }
}

TEST_CASE("the man page is generated from the command tree: every command, its flags, its example") {
  auto man = RunInProcess({.argv = {TputrainBinary(), "__man"}});
  REQUIRE(man.exit_code == 0);
  CHECK(man.out.rfind(".TH TPUTRAIN 1", 0) == 0);
  for (const char* expected : {".SS \"tputrain cluster create\"", ".SS \"tputrain job logs\"", "\\-\\-tpu\\-type",
                               "tputrain nodepool delete tpu\\-v6e\\-16", ".SH GLOBAL FLAGS"}) {
    INFO(expected);
    CHECK(man.out.find(expected) != std::string::npos);
  }
}

TEST_CASE("tputrain version --format json names the build and the libraries") {
  auto version = RunInProcess({.argv = {TputrainBinary(), "version", "--format", "json"}});
  REQUIRE(version.exit_code == 0);
  for (const char* key : {"\"version\"", "\"git_commit\"", "\"build_type\"", "\"libcurl\"", "\"yaml-cpp\""}) {
    INFO(key);
    CHECK(version.out.find(key) != std::string::npos);
  }
}
