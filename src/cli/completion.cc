#include "completion.h"

#include <algorithm>

namespace tputrain::cli {
namespace {

bool StartsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Subcommands shown to users: named, not hidden (CLI11 hides those whose group is empty).
std::vector<const CLI::App*> VisibleSubcommands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* candidate) {
         return !candidate->get_name().empty() && !candidate->get_group().empty();
       })) {
    out.push_back(sub);
  }
  return out;
}

const CLI::App* FindSubcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : VisibleSubcommands(app)) {
    if (sub->check_name(name)) return sub;
  }
  return nullptr;
}

// The commands from the root down to `app`: a command's flags and its ancestors' are accepted.
std::vector<const CLI::App*> Chain(const CLI::App* app) {
  std::vector<const CLI::App*> chain;
  for (const CLI::App* at = app; at != nullptr; at = at->get_parent()) chain.push_back(at);
  return chain;
}

const CLI::Option* FindFlag(const CLI::App* app, const std::string& word) {
  for (const CLI::App* at : Chain(app)) {
    for (const CLI::Option* option : at->get_options()) {
      if (!option->nonpositional()) continue;
      if (option->check_name(word)) return option;
    }
  }
  return nullptr;
}

// "{table,json,yaml}" inside an option's type ("TEXT:{table,json,yaml}"), as CLI11's IsMember writes it.
std::vector<std::string> EnumValues(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  auto open = type.find('{');
  auto close = type.find('}', open);
  std::vector<std::string> values;
  if (open == std::string::npos || close == std::string::npos) return values;
  std::string list = type.substr(open + 1, close - open - 1);
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    values.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

std::string LongName(const CLI::Option& option) {
  if (!option.nonpositional()) return option.get_name();
  const auto& names = option.get_lnames();
  return names.empty() ? "-" + option.get_snames().front() : "--" + names.front();
}

void ValuesOf(const CLI::Option& option, const std::string& current, const DynamicValues& dynamic, Completion& out) {
  std::vector<std::string> values = EnumValues(option);
  if (values.empty() && dynamic) values = dynamic(LongName(option));
  for (auto& value : values) {
    if (StartsWith(value, current)) out.candidates.push_back(std::move(value));
  }
  if (!out.candidates.empty() || !EnumValues(option).empty()) return;
  const std::string type = option.get_type_name();
  if (type.find("DIR") != std::string::npos) {
    out.files = CompleteFiles::kDirectories;
  } else if (type.find("FILE") != std::string::npos) {
    out.files = CompleteFiles::kFiles;
  }
}

}  // namespace

Completion Complete(const CLI::App& root, const std::vector<std::string>& words, const std::string& current,
                    const DynamicValues& dynamic) {
  const CLI::App* command = &root;
  const CLI::Option* awaiting = nullptr;  // a flag whose value is the next word
  size_t positionals = 0;
  for (const auto& word : words) {
    if (awaiting != nullptr) {
      awaiting = nullptr;
      continue;
    }
    if (word == "--") return {{}, CompleteFiles::kFiles};  // an entrypoint's own words: files, as a shell would
    if (StartsWith(word, "-")) {
      const CLI::Option* flag = FindFlag(command, word.substr(0, word.find('=')));
      if (flag != nullptr && flag->get_type_size() != 0 && word.find('=') == std::string::npos) awaiting = flag;
      continue;
    }
    if (const CLI::App* sub = FindSubcommand(*command, word)) {
      command = sub;
      positionals = 0;
    } else {
      ++positionals;
    }
  }
  Completion out;
  if (awaiting != nullptr) {
    ValuesOf(*awaiting, current, dynamic, out);
    return out;
  }
  if (StartsWith(current, "-")) {
    for (const CLI::App* at : Chain(command)) {
      for (const CLI::Option* option : at->get_options()) {
        if (!option->nonpositional()) continue;
        for (const auto& name : option->get_lnames()) {
          if (StartsWith("--" + name, current)) out.candidates.push_back("--" + name);
        }
        for (const auto& name : option->get_snames()) {
          if (StartsWith("-" + name, current)) out.candidates.push_back("-" + name);
        }
      }
    }
    std::sort(out.candidates.begin(), out.candidates.end());
    out.candidates.erase(std::unique(out.candidates.begin(), out.candidates.end()), out.candidates.end());
    return out;
  }
  auto subcommands = VisibleSubcommands(*command);
  if (!subcommands.empty()) {
    for (const CLI::App* sub : subcommands) {
      if (StartsWith(sub->get_name(), current)) out.candidates.push_back(sub->get_name());
    }
    return out;
  }
  // A positional argument: the n-th positional's values (a template name, a file).
  size_t index = 0;
  for (const CLI::Option* option : command->get_options()) {
    if (option->nonpositional()) continue;
    if (index++ == positionals || option->get_items_expected_max() > 1) {
      ValuesOf(*option, current, dynamic, out);
      return out;
    }
  }
  return out;
}

std::string FormatCompletion(const Completion& completion) {
  std::string text;
  for (const auto& candidate : completion.candidates) text += candidate + "\n";
  switch (completion.files) {
    case CompleteFiles::kFiles:
      return text + ":files\n";
    case CompleteFiles::kDirectories:
      return text + ":dirs\n";
    case CompleteFiles::kNone:
      break;
  }
  return text + ":none\n";
}

}  // namespace tputrain::cli
