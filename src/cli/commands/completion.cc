// tputrain completion bash|zsh|fish, tputrain version, and the hidden helpers the completion
// scripts and the build call (__complete, __man).
#include <CLI/Version.hpp>

#include "commands/commands.h"
#include "completion.h"
#include "man_page.h"
#include "output/output.h"
#include "tputrain/build_info.h"
#include "tputrain/core/version.h"
#include "tputrain/git_commit.h"
#include "tputrain/workflow/completion_values.h"
#include "tputrain/workflow/root.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunVersion(Context& context) {
  nlohmann::json libraries = nlohmann::json::object();
  for (const auto& [name, version] : workflow::NetworkLibraryVersions()) libraries[name] = version;
  libraries["yaml-cpp"] = build_info::kYamlCppVersion;
  libraries["nlohmann_json"] = build_info::kNlohmannJsonVersion;
  libraries["CLI11"] = CLI11_VERSION;
  libraries["fmt"] = build_info::kFmtVersion;
  nlohmann::json json = {{"version", core::kVersion},
                         {"git_commit", build_info::kGitCommit},
                         {"build_type", build_info::kBuildType},
                         {"compiler", build_info::kCompiler},
                         {"libraries", libraries}};
  PrintResult(context, json, [&](std::ostream& out) {
    out << "tputrain " << core::kVersion << " (" << build_info::kGitCommit << ", " << build_info::kBuildType << ", "
        << build_info::kCompiler << ")\n";
    for (const auto& [name, version] : libraries.items())
      out << "  " << name << " " << version.get<std::string>() << "\n";
  });
  return core::kExitOk;
}

}  // namespace

void SetupCompletionCommand(CLI::App& root, Context& context) {
  auto shell = std::make_shared<std::string>();
  auto* completion = root.add_subcommand("completion", "Print the shell completion script for bash, zsh or fish");
  completion->add_option("shell", *shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  completion->footer(
      "Examples:\n"
      "  source <(tputrain completion bash)          # in ~/.bashrc\n"
      "  tputrain completion zsh > \"${fpath[1]}/_tputrain\"\n"
      "  tputrain completion fish | source");
  completion->callback([shell, &context] {
    if (auto refused = RefuseFormat(context, OutputFormat::kJson, "a completion script is shell code"); !refused) {
      context.outcome = core::Fail(refused.error());
      return;
    }
    context.out << CompletionScript(*shell);
    context.outcome = core::kExitOk;
  });

  auto* version = root.add_subcommand("version", "Print the version, git commit, build and library versions");
  version->footer("Example:\n  tputrain version --format json");
  version->callback([&context] { context.outcome = RunVersion(context); });
}

int RunHiddenCommand(const CLI::App& root, int argc, const char* const* argv, Context& context) {
  const std::string command = argv[1];
  if (command == "__man") {
    context.out << ManPage(root, core::kVersion);
    return core::kExitOk;
  }
  // __complete CURRENT WORDS...: the word being typed, then the words before it.
  std::string current = argc > 2 ? argv[2] : "";
  std::vector<std::string> words(argv + std::min(argc, 3), argv + argc);
  auto dynamic = [&context](const std::string& option) {
    return workflow::CompletionValues(option, [&context] { return context.stack().TemplateDirs(); });
  };
  context.out << FormatCompletion(Complete(root, words, current, dynamic));
  return core::kExitOk;
}

}  // namespace tputrain::cli
