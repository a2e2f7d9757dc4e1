#include "gcloud_config.h"

#include <fstream>
#include <sstream>

#include "tputrain/core/file.h"

namespace tputrain::config {
namespace {

std::string Trim(const std::string& text) {
  auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// gcloud's own files: a missing or unreadable one is no configuration, as gcloud treats it.
std::string ReadConfigFile(const std::string& path) {
  auto text = core::ReadFile(path, "", core::kMiB);
  return text ? std::move(*text) : std::string();
}

}  // namespace

std::map<std::string, std::string> ParseIni(const std::string& text) {
  std::map<std::string, std::string> values;
  std::istringstream lines(text);
  std::string line;
  std::string section;
  while (std::getline(lines, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == ';' || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = Trim(line.substr(1, line.size() - 2));
      continue;
    }
    auto separator = line.find_first_of("=:");
    if (separator == std::string::npos || section.empty()) continue;
    values[section + "/" + Trim(line.substr(0, separator))] = Trim(line.substr(separator + 1));
  }
  return values;
}

std::string GcloudConfigDir(const core::Env& env) {
  if (auto dir = env.Get("CLOUDSDK_CONFIG")) return *dir;
  return env.Home() + "/.config/gcloud";
}

GcloudConfig ReadActiveGcloudConfig(const core::Env& env) {
  GcloudConfig config;
  std::string dir = GcloudConfigDir(env);
  if (auto name = env.Get("CLOUDSDK_ACTIVE_CONFIG_NAME")) {
    config.name = *name;
  } else {
    config.name = Trim(ReadConfigFile(dir + "/active_config"));
    if (config.name.empty()) config.name = "default";
  }
  config.path = dir + "/configurations/config_" + config.name;
  config.values = ParseIni(ReadConfigFile(config.path));
  return config;
}

}  // namespace tputrain::config
