#include "tputrain/k8s/kubeconfig_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <yaml-cpp/yaml.h>

#include "tputrain/core/file.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::k8s {
namespace {

namespace fs = std::filesystem;

void Upsert(YAML::Node root, const char* list_key, const std::string& name, const char* inner_key, YAML::Node inner) {
  YAML::Node list = root[list_key];
  if (!list || !list.IsSequence()) list = YAML::Node(YAML::NodeType::Sequence);
  YAML::Node updated(YAML::NodeType::Sequence);
  bool replaced = false;
  for (auto item : list) {
    if (item.IsMap() && item["name"] && item["name"].as<std::string>() == name) {
      item[inner_key] = inner;
      replaced = true;
    }
    updated.push_back(item);
  }
  if (!replaced) {
    YAML::Node item;
    item[inner_key] = inner;
    item["name"] = name;
    updated.push_back(item);
  }
  root[list_key] = updated;
}

}  // namespace

std::vector<std::string> TputrainTokenExecArgs() { return {"auth", "print-access-token", "--exec-credential"}; }

std::string KubeconfigWritePath(const std::string& flag, const core::Env& env) {
  if (!flag.empty()) return flag;
  if (auto list = env.Get("KUBECONFIG")) {
    auto colon = list->find(':');
    std::string first = list->substr(0, colon);
    if (!first.empty()) return first;
  }
  return (fs::path(env.Home()) / ".kube" / "config").string();
}

core::Status WriteKubeconfigEntry(const std::string& path, const KubeconfigEntry& entry) {
  YAML::Node root(YAML::NodeType::Map);
  std::error_code ec;
  if (fs::exists(path, ec)) {
    // Read bounded and walked bounded: the whole file is emitted again below.
    auto text = core::ReadFile(path, "--kubeconfig", 16 * core::kMiB);
    if (!text) return core::Fail(text.error());
    auto loaded = yaml::Load(*text, path + ": cannot update");
    if (!loaded) return core::Fail(loaded.error());
    if (loaded->IsMap()) root = *loaded;
  }
  root["apiVersion"] = "v1";
  root["kind"] = "Config";
  if (!root["preferences"]) root["preferences"] = YAML::Node(YAML::NodeType::Map);

  YAML::Node cluster;
  cluster["certificate-authority-data"] = entry.ca_data;
  cluster["server"] = entry.server;
  Upsert(root, "clusters", entry.name, "cluster", cluster);

  YAML::Node context;
  context["cluster"] = entry.name;
  context["user"] = entry.name;
  Upsert(root, "contexts", entry.name, "context", context);

  YAML::Node exec;
  exec["apiVersion"] = "client.authentication.k8s.io/v1beta1";
  if (entry.auth == KubeconfigEntry::Auth::kGkeGcloudAuthPlugin) {
    exec["command"] = "gke-gcloud-auth-plugin";
    exec["installHint"] =
        "Install gke-gcloud-auth-plugin for use with kubectl by following "
        "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin";
  } else {
    exec["command"] = entry.tputrain_command;
    for (const auto& arg : TputrainTokenExecArgs()) exec["args"].push_back(arg);
    exec["installHint"] = "tputrain prints the access token of your Google Cloud credentials";
  }
  exec["provideClusterInfo"] = true;
  YAML::Node user;
  user["exec"] = exec;
  Upsert(root, "users", entry.name, "user", user);
  root["current-context"] = entry.name;

  YAML::Emitter emitter;
  emitter << root;
  if (!emitter.good()) return core::Fail(core::Error::Internal("cannot write kubeconfig: " + emitter.GetLastError()));

  fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  std::string temp = path + ".tputrain-" + std::to_string(getpid());
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return core::Fail(core::Error::Usage("cannot write " + path + ": " + std::strerror(errno)));
  std::string text = std::string(emitter.c_str()) + "\n";
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ok = fsync(fd) == 0 && ok;
  close(fd);
  if (!ok || rename(temp.c_str(), path.c_str()) != 0) {
    unlink(temp.c_str());
    return core::Fail(core::Error::Usage("cannot write " + path + ": " + std::strerror(errno)));
  }
  return {};
}

}  // namespace tputrain::k8s
