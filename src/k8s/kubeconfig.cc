#include "tputrain/k8s/kubeconfig.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "tputrain/core/file.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::k8s {
namespace {

namespace fs = std::filesystem;

// One named entry (cluster, user or context) and the directory of the file that defined it.
struct Entry {
  YAML::Node node;
  std::string dir;
  std::string file;
};

struct Merged {
  std::map<std::string, Entry> clusters;
  std::map<std::string, Entry> users;
  std::map<std::string, Entry> contexts;
  std::string current_context;
  std::vector<std::string> files;
};

core::Error Bad(const std::string& where, const std::string& message) {
  auto error = core::Error::Usage(where + ": " + message);
  return error;
}

std::string Str(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap() || !node[key] || !node[key].IsScalar()) return "";
  return node[key].as<std::string>();
}

bool Bool(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap() || !node[key] || !node[key].IsScalar()) return false;
  std::string value = node[key].as<std::string>();
  return value == "true" || value == "True" || value == "TRUE";
}

// Certificates, keys and tokens are a few KiB; a kubeconfig naming many clusters a few MiB.
constexpr size_t kMaxCredentialFileBytes = core::kMiB;
constexpr size_t kMaxKubeconfigBytes = 16 * core::kMiB;

std::string Resolve(const std::string& path, const std::string& dir) {
  if (path.empty() || fs::path(path).is_absolute() || dir.empty()) return path;
  return (fs::path(dir) / path).string();
}

core::Status MergeDocument(const YAML::Node& root, const std::string& file, const std::string& dir, Merged& merged) {
  if (!root || root.IsNull()) return {};
  if (!root.IsMap()) return core::Fail(Bad(file, "not a kubeconfig (expected a mapping)"));
  auto merge_list = [&](const char* key, const char* inner, std::map<std::string, Entry>& into) -> core::Status {
    auto list = root[key];
    if (!list || list.IsNull()) return {};
    if (!list.IsSequence()) return core::Fail(Bad(file, std::string(key) + " must be a list"));
    for (const auto& item : list) {
      std::string name = Str(item, "name");
      if (name.empty()) return core::Fail(Bad(file, std::string(key) + "[].name is required"));
      // kubectl's merge: the first file to define a name wins.
      into.try_emplace(name, Entry{item[inner], dir, file});
    }
    return {};
  };
  if (auto s = merge_list("clusters", "cluster", merged.clusters); !s) return s;
  if (auto s = merge_list("users", "user", merged.users); !s) return s;
  if (auto s = merge_list("contexts", "context", merged.contexts); !s) return s;
  if (merged.current_context.empty()) merged.current_context = Str(root, "current-context");
  merged.files.push_back(file);
  return {};
}

core::Status MergeText(const std::string& text, const std::string& file, const std::string& dir, Merged& merged) {
  auto document = yaml::Load(text, file);
  if (!document) return core::Fail(document.error());
  try {
    return MergeDocument(*document, file, dir, merged);
  } catch (const YAML::Exception& e) {
    return core::Fail(Bad(file, std::string("invalid YAML: ") + e.what()));
  }
}

// A PEM from `<field>-data` (base64) or `<field>` (a file path).
core::Result<std::string> PemField(const Entry& entry, const char* data_key, const char* file_key,
                                   const std::string& where) {
  if (std::string data = Str(entry.node, data_key); !data.empty()) {
    auto pem = core::DecodeBase64(data);
    if (!pem) return core::Fail(Bad(where + "." + data_key, pem.error().message));
    return pem;
  }
  if (std::string path = Str(entry.node, file_key); !path.empty()) {
    return core::ReadFile(Resolve(path, entry.dir), where + "." + file_key, kMaxCredentialFileBytes);
  }
  return std::string();
}

core::Result<ExecConfig> ParseExec(const Entry& user, const std::string& where) {
  const auto& node = user.node["exec"];
  ExecConfig exec;
  exec.command = Str(node, "command");
  if (exec.command.empty()) return core::Fail(Bad(where, "exec.command is required"));
  if (auto api = Str(node, "apiVersion"); !api.empty()) exec.api_version = api;
  if (node["args"] && node["args"].IsSequence()) {
    for (const auto& arg : node["args"]) exec.args.push_back(arg.as<std::string>());
  }
  if (node["env"] && node["env"].IsSequence()) {
    for (const auto& item : node["env"]) exec.env.emplace_back(Str(item, "name"), Str(item, "value"));
  }
  exec.install_hint = Str(node, "installHint");
  exec.provide_cluster_info = Bool(node, "provideClusterInfo");
  exec.base_dir = user.dir;
  return exec;
}

core::Result<ClusterAccess> Select(const Merged& merged, const KubeconfigOptions& options) {
  std::string files;
  for (const auto& file : merged.files) files += (files.empty() ? "" : ", ") + file;
  std::string name = options.context.empty() ? merged.current_context : options.context;
  if (name.empty()) {
    return core::Fail(core::Error::Usage("no current-context in " + files + ": pass --context NAME"));
  }
  auto context_it = merged.contexts.find(name);
  if (context_it == merged.contexts.end()) {
    return core::Fail(core::Error::Usage("--context: no context named '" + name + "' in " + files));
  }
  const Entry& context = context_it->second;
  std::string cluster_name = Str(context.node, "cluster");
  std::string user_name = Str(context.node, "user");
  auto cluster_it = merged.clusters.find(cluster_name);
  if (cluster_it == merged.clusters.end()) {
    return core::Fail(
        Bad(context.file, "context '" + name + "' names cluster '" + cluster_name + "', which is not defined"));
  }
  const Entry& cluster = cluster_it->second;
  std::string cluster_where = cluster.file + ": clusters[" + cluster_name + "].cluster";

  ClusterAccess access;
  access.context = name;
  access.server = Str(cluster.node, "server");
  if (access.server.empty()) return core::Fail(Bad(cluster_where, "server is required"));
  if (std::string ns = Str(context.node, "namespace"); !ns.empty()) access.default_namespace = ns;
  auto ca = PemField(cluster, "certificate-authority-data", "certificate-authority", cluster_where);
  if (!ca) return core::Fail(ca.error());
  access.ca_pem = std::move(*ca);
  access.insecure_skip_tls_verify = Bool(cluster.node, "insecure-skip-tls-verify");
  if (access.insecure_skip_tls_verify && !options.allow_insecure) {
    return core::Fail(Bad(cluster_where,
                          "insecure-skip-tls-verify is set; tputrain verifies the API server's "
                          "certificate unless you pass --insecure-skip-tls-verify"));
  }

  if (user_name.empty()) return access;  // anonymous
  auto user_it = merged.users.find(user_name);
  if (user_it == merged.users.end()) {
    return core::Fail(Bad(context.file, "context '" + name + "' names user '" + user_name + "', which is not defined"));
  }
  const Entry& user = user_it->second;
  std::string user_where = user.file + ": users[" + user_name + "].user";
  auto cert = PemField(user, "client-certificate-data", "client-certificate", user_where);
  if (!cert) return core::Fail(cert.error());
  auto key = PemField(user, "client-key-data", "client-key", user_where);
  if (!key) return core::Fail(key.error());
  if (cert->empty() != key->empty()) {
    return core::Fail(Bad(user_where, "client-certificate and client-key must be given together"));
  }
  access.client_cert_pem = std::move(*cert);
  access.client_key_pem = std::move(*key);
  access.token = Str(user.node, "token");
  if (std::string token_file = Str(user.node, "tokenFile"); access.token.empty() && !token_file.empty()) {
    auto token = core::ReadFile(Resolve(token_file, user.dir), user_where + ".tokenFile", kMaxCredentialFileBytes);
    if (!token) return core::Fail(token.error());
    access.token = *token;
    while (!access.token.empty() &&
           (access.token.back() == '\n' || access.token.back() == '\r' || access.token.back() == ' ')) {
      access.token.pop_back();
    }
  }
  if (user.node && user.node.IsMap() && user.node["exec"]) {
    auto exec = ParseExec(user, user_where);
    if (!exec) return core::Fail(exec.error());
    access.exec = std::move(*exec);
  }
  if (user.node && user.node.IsMap() && user.node["auth-provider"]) {
    return core::Fail(Bad(user_where,
                          "auth-provider plugins were removed from Kubernetes; use an exec entry "
                          "(e.g. gke-gcloud-auth-plugin)"));
  }
  if (!Str(user.node, "username").empty() || !Str(user.node, "password").empty()) {
    return core::Fail(Bad(user_where,
                          "basic authentication (username/password) is not supported; use a token, "
                          "a client certificate or an exec entry"));
  }
  return access;
}

std::vector<std::string> SplitPathList(const std::string& list) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : list) {
    if (c == ':') {
      if (!current.empty()) parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

}  // namespace

core::Result<ClusterAccess> ClusterAccessFromKubeconfigText(const std::string& text, const std::string& base_dir,
                                                            const KubeconfigOptions& options) {
  Merged merged;
  if (auto s = MergeText(text, "kubeconfig", base_dir, merged); !s) return core::Fail(s.error());
  return Select(merged, options);
}

core::Result<ClusterAccess> LoadClusterAccess(const KubeconfigOptions& options, const core::Env& env) {
  std::vector<std::string> files;
  bool explicit_file = !options.kubeconfig.empty();
  if (explicit_file) {
    files.push_back(options.kubeconfig);
  } else if (auto list = env.Get("KUBECONFIG")) {
    files = SplitPathList(*list);
  } else {
    files.push_back((fs::path(env.Home()) / ".kube" / "config").string());
  }
  Merged merged;
  for (const auto& file : files) {
    std::error_code ec;
    if (!fs::exists(file, ec)) {
      if (explicit_file) return core::Fail(core::Error::Usage("--kubeconfig: no such file: " + file));
      continue;  // kubectl skips KUBECONFIG entries that do not exist
    }
    auto text = core::ReadFile(file, explicit_file ? "--kubeconfig" : "kubeconfig", kMaxKubeconfigBytes);
    if (!text) return core::Fail(text.error());
    std::string dir = fs::absolute(fs::path(file), ec).parent_path().string();
    if (auto s = MergeText(*text, file, dir, merged); !s) return core::Fail(s.error());
  }
  if (merged.files.empty()) {
    std::string where = env.Get("KUBECONFIG") ? "KUBECONFIG (" + *env.Get("KUBECONFIG") + ")" : files.front();
    return core::Fail(core::Error::Usage("no kubeconfig found at " + where +
                                         ": pass --kubeconfig FILE, or get credentials for a cluster first"));
  }
  return Select(merged, options);
}

bool DefaultKubeconfigExists(const core::Env& env) {
  std::error_code ec;
  if (auto list = env.Get("KUBECONFIG")) {
    for (const auto& file : SplitPathList(*list)) {
      if (fs::exists(file, ec)) return true;
    }
    return false;
  }
  return fs::exists(fs::path(env.Home()) / ".kube" / "config", ec);
}

}  // namespace tputrain::k8s
