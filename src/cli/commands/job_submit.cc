#include "commands/job_submit.h"

#include <yaml-cpp/yaml.h>

#include "tputrain/core/file.h"
#include "tputrain/core/json.h"
#include "tputrain/core/number.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::cli {
namespace {

core::Result<nlohmann::json> ParseJsonFlag(const std::string& flag, const std::string& text) {
  auto json = core::ParseJson(text, "").value_or(nullptr);
  if (!json.is_object()) {
    return core::Fail(core::Error::Usage(flag + ": expected a JSON object, e.g. '{\"key\": \"value\"}'"));
  }
  return json;
}

// YAML scalars are untyped in yaml-cpp; plain ones that read as numbers or booleans become
// JSON numbers and booleans, as PyYAML would load them for the Ray CLI.
nlohmann::json YamlToJson(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::json object = nlohmann::json::object();
      for (const auto& item : node) object[item.first.as<std::string>()] = YamlToJson(item.second);
      return object;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::json array = nlohmann::json::array();
      for (const auto& item : node) array.push_back(YamlToJson(item));
      return array;
    }
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() == "!") return text;  // quoted
      if (text == "true" || text == "True") return true;
      if (text == "false" || text == "False") return false;
      if (text == "null" || text == "~") return nullptr;
      auto number = core::ParseJson(text, "").value_or(nullptr);
      if (number.is_number()) return number;
      return text;
    }
    default:
      return nullptr;
  }
}

core::Result<nlohmann::json> ReadRuntimeEnvFile(const std::string& path) {
  auto text = core::ReadFile(path, "--runtime-env", 4 * core::kMiB);
  if (!text) return core::Fail(text.error());
  auto document = yaml::Load(*text, "--runtime-env " + path);  // JSON is YAML too
  if (!document) return core::Fail(document.error());
  try {
    auto json = YamlToJson(*document);
    if (!json.is_object()) return core::Fail(core::Error::Usage("--runtime-env " + path + ": expected a mapping"));
    return json;
  } catch (const YAML::Exception& e) {
    return core::Fail(core::Error::Usage("--runtime-env " + path + ": " + e.what()));
  }
}

bool IsRemoteUri(const std::string& path) { return path.find("://") != std::string::npos; }

}  // namespace

core::Result<ray::SubmitRequest> BuildSubmitRequest(const JobSubmitFlags& flags, std::string& local_working_dir) {
  ray::SubmitRequest request;
  if (flags.command.empty()) {
    return core::Fail(core::Error::Usage("job submit: the entrypoint is missing: add -- COMMAND ARGS..."));
  }
  request.entrypoint = ray::ShellJoin(flags.command);
  if (!flags.submission_id.empty() &&
      flags.submission_id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
          std::string::npos) {
    return core::Fail(core::Error::Usage("--submission-id: expected letters, digits, '.', '_' or '-'"));
  }
  request.submission_id = flags.submission_id;
  if (!flags.runtime_env_json.empty() && !flags.runtime_env_file.empty()) {
    return core::Fail(core::Error::Usage("--runtime-env and --runtime-env-json: give at most one"));
  }
  if (!flags.runtime_env_json.empty()) {
    auto env = ParseJsonFlag("--runtime-env-json", flags.runtime_env_json);
    if (!env) return core::Fail(env.error());
    request.runtime_env = *env;
  } else if (!flags.runtime_env_file.empty()) {
    auto env = ReadRuntimeEnvFile(flags.runtime_env_file);
    if (!env) return core::Fail(env.error());
    request.runtime_env = *env;
  }
  if (!flags.working_dir.empty()) request.runtime_env["working_dir"] = flags.working_dir;
  if (auto it = request.runtime_env.find("working_dir"); it != request.runtime_env.end()) {
    if (!it->is_string()) return core::Fail(core::Error::Usage("runtime_env.working_dir: expected a path or URI"));
    if (!IsRemoteUri(it->get<std::string>())) local_working_dir = it->get<std::string>();
  }
  if (!flags.metadata_json.empty()) {
    auto metadata = ParseJsonFlag("--metadata-json", flags.metadata_json);
    if (!metadata) return core::Fail(metadata.error());
    for (const auto& [key, value] : metadata->items()) {
      if (!value.is_string())
        return core::Fail(core::Error::Usage("--metadata-json: value of '" + key + "' must be a string"));
      request.metadata[key] = value.get<std::string>();
    }
  }
  if (!flags.resources_json.empty()) {
    auto resources = ParseJsonFlag("--entrypoint-resources", flags.resources_json);
    if (!resources) return core::Fail(resources.error());
    for (const auto& [key, value] : resources->items()) {
      if (!value.is_number() || value.get<double>() < 0) {
        return core::Fail(
            core::Error::Usage("--entrypoint-resources: value of '" + key + "' must be a number of at least 0"));
      }
      request.entrypoint_resources[key] = value.get<double>();
    }
  }
  // Bounds far past any Ray node, so only nonsense is refused; Ray checks what its nodes have.
  constexpr double kMaxUnits = 1e6;
  if (flags.num_cpus) {
    auto cpus = core::ParseAmount("--entrypoint-num-cpus", *flags.num_cpus, kMaxUnits);
    if (!cpus) return core::Fail(cpus.error());
    request.entrypoint_num_cpus = *cpus;
  }
  if (flags.num_gpus) {
    auto gpus = core::ParseAmount("--entrypoint-num-gpus", *flags.num_gpus, kMaxUnits);
    if (!gpus) return core::Fail(gpus.error());
    request.entrypoint_num_gpus = *gpus;
  }
  if (flags.memory) {
    auto bytes = core::ParseWhole("--entrypoint-memory", *flags.memory, 0, INT64_MAX);
    if (!bytes) return core::Fail(bytes.error());
    request.entrypoint_memory = *bytes;
  }
  return request;
}

void AddSubmitFlags(CLI::App* submit, JobSubmitFlags& flags) {
  submit->add_option("command", flags.command, "The entrypoint, after --: COMMAND ARGS...");
  submit->add_option("--submission-id", flags.submission_id, "Id for the job (default: generated raysubmit_...)");
  submit->add_option("--runtime-env-json", flags.runtime_env_json, "runtime_env as a JSON object");
  submit->add_option("--runtime-env", flags.runtime_env_file, "runtime_env from a YAML or JSON file")
      ->type_name("FILE");
  submit
      ->add_option("--working-dir", flags.working_dir,
                   "Local directory to zip and upload as the job's working_dir (or a remote URI)")
      ->type_name("DIR");
  submit->add_option("--metadata-json", flags.metadata_json, "Job metadata as a JSON object of strings");
  submit->add_option("--entrypoint-num-cpus", flags.num_cpus, "CPUs reserved for the entrypoint");
  submit->add_option("--entrypoint-num-gpus", flags.num_gpus, "GPUs reserved for the entrypoint");
  submit->add_option("--entrypoint-memory", flags.memory, "Memory in bytes reserved for the entrypoint (Ray >= 2.8)");
  submit->add_option("--entrypoint-resources", flags.resources_json,
                     "Custom resources for the entrypoint as JSON, e.g. '{\"TPU\": 4}'");
}

}  // namespace tputrain::cli
