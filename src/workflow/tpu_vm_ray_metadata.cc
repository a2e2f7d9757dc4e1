// The metadata `tpu-vm create --ray` gives a node: how each flag's values travel to the hosts'
// startup script, and what a re-run with other values finds different.
#include <algorithm>
#include <functional>
#include <regex>

#include "tputrain/core/json_fields.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {
namespace {

// The value in an error when it can be shown on one line; the error still names the flag.
std::string Shown(const std::string& value) {
  const bool printable = value.size() <= 64 && std::all_of(value.begin(), value.end(), [](char c) {
                           return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
                         });
  return printable ? ", got '" + value + "'" : "";
}

// Releases as pip spells them: 2.60.0, 2.10.0rc1, 3.0.0.dev0, 2.9.3.post1.
core::Status CheckRayVersion(const std::string& version) {
  static const std::regex kVersion(
      R"([0-9]{1,4}(\.[0-9]{1,4}){0,3}((a|b|rc)[0-9]{1,4})?(\.post[0-9]{1,4})?(\.dev[0-9]{1,4})?)");
  if (version.size() <= 40 && std::regex_match(version, kVersion)) return {};
  return core::Fail(core::Error::Usage(
      "--ray-version: expected a Ray release such as 2.60.0 (numbers and dots, then optionally rcN, .postN or .devN)" +
      Shown(version)));
}

// The script reads one argument a line: a value must not hold a line break (or a NUL, which
// metadata cannot carry).
core::Status CheckOneLine(const std::string& flag, const std::string& value, const std::string& what) {
  if (value.find_first_of(std::string("\n\r\0", 3)) == std::string::npos) return {};
  return core::Fail(core::Error::Usage(flag + ": " + what + " must be one line, without line breaks"));
}

// `--ray-start-args "--num-cpus=4 --resources='{\"a\": 1}'"` as a POSIX shell splits words:
// blanks separate them, quotes and backslashes keep text together, and nothing is expanded
// (no $, no globs, no ~): what the user quoted is what `ray start` gets.
core::Result<std::vector<std::string>> SplitWords(const std::string& flag, const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i == text.size()) return core::Fail(core::Error::Usage(flag + ": ends with a lone backslash"));
      if (text[i] != '\n') word += text[i];  // backslash-newline joins lines
    } else if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) return core::Fail(core::Error::Usage(flag + ": a ' quote is not closed"));
      word += text.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i == text.size()) return core::Fail(core::Error::Usage(flag + ": a \" quote is not closed"));
        if (text[i] == '"') break;
        if (text[i] == '\\' && i + 1 < text.size() &&
            std::string_view("\"\\$`\n").find(text[i + 1]) != std::string_view::npos) {
          ++i;
          if (text[i] == '\n') continue;
        }
        word += text[i];
      }
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string Lines(const std::vector<std::string>& values) {
  std::string joined;
  for (const auto& value : values) joined += (joined.empty() ? "" : "\n") + value;
  return joined;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

core::Result<std::map<std::string, std::string>> RayMetadata(const RayBoot& boot,
                                                             const std::map<std::string, std::string>& user) {
  if (auto version = CheckRayVersion(boot.ray_version); !version) return core::Fail(version.error());
  for (const auto& package : boot.packages) {
    if (package.empty()) return core::Fail(core::Error::Usage("--pip: expected a package, got an empty value"));
    if (auto line = CheckOneLine("--pip", package, "each package"); !line) return core::Fail(line.error());
  }
  auto start_args = SplitWords("--ray-start-args", boot.start_args);
  if (!start_args) return core::Fail(start_args.error());
  for (const auto& arg : *start_args) {
    if (arg.empty()) return core::Fail(core::Error::Usage("--ray-start-args: an empty argument ('' or \"\")"));
    if (auto line = CheckOneLine("--ray-start-args", arg, "each argument"); !line) return core::Fail(line.error());
  }
  std::map<std::string, std::string> metadata = user;
  auto add = [&](const std::string& key, const std::string& value) -> core::Status {
    if (user.count(key) != 0) {
      return core::Fail(core::Error::Usage("--metadata: " + key + " is what --ray sets; leave it out"));
    }
    metadata[key] = value;
    return {};
  };
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"startup-script", RayStartupScript()},
                                                        {kRayTokenKey, boot.token},
                                                        {kRayVersionKey, boot.ray_version},
                                                        {kRayTimeoutKey, std::to_string(boot.join_within.count())}}) {
    if (auto added = add(key, value); !added) return core::Fail(added.error());
  }
  // One argument a line: the script reads them into arrays, never splitting or globbing again.
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {kRayStartArgsKey, Lines(*start_args)},
           {kRaySetupKey, boot.setup},
           {kRayPackagesKey, Lines(boot.packages)},
           {kRaySlicesKey, boot.slices > 1 ? std::to_string(boot.slices) : ""}}) {
    if (value.empty()) continue;
    if (auto added = add(key, value); !added) return core::Fail(added.error());
  }
  return metadata;
}

std::vector<std::string> RayBootDifferences(const std::map<std::string, std::string>& want,
                                            const nlohmann::json& have) {
  std::vector<std::string> differences;
  if (want.count(kRayTokenKey) == 0) return differences;  // not a --ray create
  if (core::StringAt(have, kRayTokenKey).empty()) {
    differences.push_back("--ray: want Ray started at boot, have a node made without --ray");
    return differences;
  }
  auto wanted = [&](const char* key) {
    auto found = want.find(key);
    return found == want.end() ? std::string() : found->second;
  };
  auto shown = [](const std::string& text) { return text.empty() ? std::string("(unset)") : text; };
  auto words = [&](const std::string& lines) { return shown(ray::ShellJoin(SplitLines(lines))); };
  auto compare = [&](const char* flag, const char* key, const std::function<std::string(const std::string&)>& show) {
    const std::string a = wanted(key);
    const std::string b = core::StringAt(have, key);
    if (a == b) return;
    differences.push_back(std::string(flag) + " (metadata " + key + "): want " + show(a) + ", have " + show(b));
  };
  compare("--ray-version", kRayVersionKey, shown);
  compare("--pip", kRayPackagesKey, words);
  compare("--ray-start-args", kRayStartArgsKey, words);
  // A script is not shown: only that it differs, and its size.
  const std::string script = wanted(kRaySetupKey);
  const std::string had = core::StringAt(have, kRaySetupKey);
  if (script != had) {
    auto size = [](const std::string& text, const char* article) {
      return text.empty() ? std::string("(unset)") : article + (" script of " + std::to_string(text.size()) + " bytes");
    };
    differences.push_back(std::string("--setup (metadata ") + kRaySetupKey + "): want " +
                          size(script, script.size() == had.size() ? "another" : "a") + ", have " + size(had, "a"));
  }
  return differences;
}

}  // namespace tputrain::workflow
