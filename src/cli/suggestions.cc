#include "suggestions.h"

#include <algorithm>

#include "tputrain/core/nearest.h"
#include "tputrain/core/text.h"

namespace tputrain::cli {
namespace {

// The commands CLI11 got as far as: the root, then each parsed subcommand in turn.
std::vector<const CLI::App*> ParsedChain(const CLI::App& root) {
  std::vector<const CLI::App*> chain = {&root};
  for (;;) {
    const auto parsed = chain.back()->get_subcommands();
    if (parsed.empty()) return chain;
    chain.push_back(parsed.back());
  }
}

std::string CommandPath(const std::vector<const CLI::App*>& chain) {
  std::string path = "tputrain";
  for (std::size_t i = 1; i < chain.size(); ++i) path += " " + chain[i]->get_name();
  return path;
}

// Flags the innermost command takes, its own and those of the commands around it (global flags
// are accepted anywhere); hidden ones (no group) are not offered.
std::vector<std::string> FlagNames(const std::vector<const CLI::App*>& chain) {
  std::vector<std::string> names;
  for (const CLI::App* app : chain) {
    for (const CLI::Option* option : app->get_options()) {
      if (option->get_group().empty()) continue;
      for (const auto& name : option->get_lnames()) names.push_back("--" + name);
      for (const auto& name : option->get_snames()) names.push_back("-" + name);
    }
  }
  return names;
}

std::vector<std::string> CommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App* each) { return !each->get_group().empty(); })) {
    names.push_back(command->get_name());
  }
  return names;
}

// "a", "a or b", "a, b or c".
std::string Alternatives(const std::vector<std::string>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) text += i + 1 == words.size() ? " or " : ", ";
    text += words[i];
  }
  return text;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto nearest = core::Nearest(word, candidates);
  return nearest.empty() ? "" : "; did you mean " + Alternatives(nearest) + "?";
}

std::string UnknownFlagLine(std::string_view word, const std::vector<const CLI::App*>& chain) {
  const std::string flag(word.substr(0, word.find('=')));
  const std::string path = CommandPath(chain);
  const std::string hint = DidYouMean(flag, FlagNames(chain));
  return core::PrintableText(flag) + ": no such flag for '" + path + "'" +
         (hint.empty() ? " (see " + path + " --help)" : hint);
}

std::string UnknownCommandLine(std::string_view word, const CLI::App& app, const std::string& path) {
  const auto commands = CommandNames(app);
  const std::string hint = DidYouMean(word, commands);
  return core::PrintableText(word) + ": no such command of '" + path + "'" +
         (hint.empty() ? "; its commands: " + Alternatives(commands) : hint);
}

}  // namespace

std::optional<std::string> UnplacedWordLine(const CLI::App& root, const CLI::ParseError& error) {
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr;
  // "--model is required" when --model was typed as --mdoel: the typo is the thing to say.
  const bool required = dynamic_cast<const CLI::RequiredError*>(&error) != nullptr;
  const bool missing_command = std::string_view(error.what()) == "A subcommand is required";
  if (!extras && !required) return std::nullopt;
  const auto chain = ParsedChain(root);
  const CLI::App& innermost = *chain.back();
  const std::string path = CommandPath(chain);
  std::vector<std::string> flags;
  std::vector<std::string> words;
  for (const auto& each : root.remaining(true)) (each.size() > 1 && each[0] == '-' ? flags : words).push_back(each);
  // Where a command is still to come, a word is that command mistyped (its flags come after it);
  // the word nearest a command is the one meant.
  if (required && !missing_command && flags.empty()) return std::nullopt;  // a flag left out, not mistyped
  const auto commands = CommandNames(innermost);
  if (!commands.empty()) {
    if (words.empty() && flags.empty()) return "'" + path + "' needs a command: " + Alternatives(commands);
    if (!words.empty()) {
      const auto meant = std::find_if(words.begin(), words.end(),
                                      [&](const std::string& word) { return !core::Nearest(word, commands).empty(); });
      return UnknownCommandLine(meant != words.end() ? *meant : words.front(), innermost, path);
    }
  }
  // Else a mistyped flag: the words left over are most likely its value.
  if (!flags.empty()) return UnknownFlagLine(flags.front(), chain);
  if (!words.empty()) {
    return core::PrintableText(words.front()) + ": '" + path + "' takes no such argument (see " + path + " --help)";
  }
  return std::nullopt;
}

}  // namespace tputrain::cli
