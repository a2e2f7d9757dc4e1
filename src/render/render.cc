#include "tputrain/render/render.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "substitute.h"
#include "yaml_check.h"

namespace tputrain::render {
namespace fs = std::filesystem;
namespace {

constexpr const char* kTpuType = "TPU_TYPE";
constexpr const char* kNumSlices = "NUM_SLICES";

struct Explicit {
  std::string value;
  std::string origin;  // "--set", "--values FILE", "the environment"
};

// Resolves names for one render: explicit values, then the slice's computed values, then the
// configuration, then the template's defaults (themselves substituted, once, with cycles and
// missing names reported).
class Resolver {
 public:
  Resolver(const TemplateSpec& spec, std::map<std::string, Explicit> given,
           std::map<std::string, ComputedValue> computed, std::map<std::string, std::string> configuration)
      : spec_(spec), given_(std::move(given)), computed_(std::move(computed)),
        configuration_(std::move(configuration)) {}

  std::optional<std::string> Get(const std::string& name) {
    if (auto it = given_.find(name); it != given_.end()) return it->second.value;
    if (auto it = computed_.find(name); it != computed_.end()) return it->second.value;
    if (auto it = configuration_.find(name); it != configuration_.end()) return it->second;
    if (auto it = defaults_.find(name); it != defaults_.end()) return it->second;
    const VariableSpec* variable = spec_.Find(name);
    if (!variable || !variable->has_default) return std::nullopt;
    if (!expanding_.insert(name).second) {
      if (cycle_.empty()) cycle_ = name;
      return std::nullopt;
    }
    auto expanded = Substitute(
        variable->default_value, [this](const std::string& n) { return Get(n); }, "template.yaml default of " + name);
    expanding_.erase(name);
    std::optional<std::string> value;
    if (!expanded) {
      if (!error_) error_ = expanded.error();
    } else if (!expanded->missing.empty()) {
      std::string needs;
      for (const auto& reference : expanded->missing) needs += (needs.empty() ? "" : ", ") + reference.name;
      notes_[name] = "its default \"" + variable->default_value + "\" needs " + needs;
    } else {
      value = expanded->text;
    }
    defaults_[name] = value;
    return value;
  }

  ValueType TypeOf(const std::string& name) const {
    if (auto it = computed_.find(name); it != computed_.end()) return it->second.type;
    if (name == kNumSlices) return ValueType::kInt;
    const VariableSpec* variable = spec_.Find(name);
    return variable ? variable->type : ValueType::kString;
  }

  const std::optional<core::Error>& error() const { return error_; }
  const std::string& cycle() const { return cycle_; }
  const std::map<std::string, std::string>& notes() const { return notes_; }

 private:
  const TemplateSpec& spec_;
  std::map<std::string, Explicit> given_;
  std::map<std::string, ComputedValue> computed_;
  std::map<std::string, std::string> configuration_;
  std::map<std::string, std::optional<std::string>> defaults_;
  std::set<std::string> expanding_;
  std::map<std::string, std::string> notes_;
  std::optional<core::Error> error_;
  std::string cycle_;
};

std::string Join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string ComputedHint(const std::string& name) {
  return name + " is computed from TPU_TYPE and NUM_SLICES; set those instead (tputrain render TEMPLATE --describe)";
}

// Collects explicit values in precedence order: environment < values files < --set.
core::Result<std::map<std::string, Explicit>> GatherExplicit(const RenderRequest& request, const TemplateSpec& spec) {
  std::map<std::string, Explicit> given;
  if (request.env) {
    for (const auto& [name, value] : request.env->vars()) {
      if (IsComputed(name) || !IsValidName(name)) continue;  // ambient variables cannot pin a slice fact
      given[name] = {value, "the environment"};
    }
  }
  for (const auto& path : request.values_files) {
    auto values = LoadValuesFile(path);
    if (!values) return core::Fail(values.error());
    for (auto& [name, value] : *values) {
      if (IsComputed(name)) return core::Fail(core::Error::Usage("--values " + path + ": " + ComputedHint(name)));
      given[name] = {value, "--values " + path};
    }
  }
  std::set<std::string> referenced;
  for (const auto& file : spec.files) {
    for (const auto& reference : References(file.text)) referenced.insert(reference.name);
  }
  for (const auto& variable : spec.variables) {
    referenced.insert(variable.name);
    for (const auto& reference : References(variable.default_value)) referenced.insert(reference.name);
  }
  if (!spec.default_tpu_type.empty()) referenced.insert({kTpuType, kNumSlices});
  for (const auto& text : request.sets) {
    auto assignment = ParseAssignment(text, "--set");
    if (!assignment) return core::Fail(assignment.error());
    auto& [name, value] = *assignment;
    if (IsComputed(name)) return core::Fail(core::Error::Usage("--set " + name + ": " + ComputedHint(name)));
    if (!referenced.count(name)) {
      return core::Fail(core::Error::Usage("--set " + name + ": template " + spec.name + " has no variable " + name +
                                           " (tputrain render " + spec.name + " --describe)"));
    }
    given[name] = {value, "--set"};
  }
  for (const auto& [name, entry] : given) {
    const VariableSpec* variable = spec.Find(name);
    ValueType type = variable ? variable->type : ValueType::kString;
    if (name == kNumSlices) type = ValueType::kInt;
    if (entry.origin == "the environment" && !referenced.count(name)) continue;
    auto status = CheckValueType(name, entry.value, type, entry.origin);
    if (!status) return core::Fail(std::move(status).error());
  }
  return given;
}

core::Result<std::map<std::string, ComputedValue>> ComputeSlice(const TemplateSpec& spec,
                                                                const SliceValues& slice_values,
                                                                std::map<std::string, Explicit>& given) {
  std::map<std::string, ComputedValue> computed;
  std::string tpu_type = spec.default_tpu_type;
  std::string origin = "template " + spec.name;
  if (auto it = given.find(kTpuType); it != given.end()) {
    tpu_type = it->second.value;
    origin = it->second.origin;
  }
  if (tpu_type.empty()) return computed;
  if (!slice_values) {
    return core::Fail(
        core::Error::Internal("template " + spec.name + " has a TPU_TYPE, but no slice values were given"));
  }
  int slices = spec.default_slices;
  if (auto it = given.find(kNumSlices); it != given.end()) {
    const std::string& text = it->second.value;
    const char* first = text.data() + (text.rfind('+', 0) == 0 ? 1 : 0);
    const auto parsed = std::from_chars(first, text.data() + text.size(), slices);
    if (parsed.ec != std::errc() || slices < 1 || slices > 1024) {
      return core::Fail(
          core::Error::Usage(it->second.origin + ": NUM_SLICES must be between 1 and 1024, got " + it->second.value));
    }
  }
  auto values = slice_values(tpu_type, slices);
  if (!values) return core::Fail(core::Error::Usage(origin + ": TPU_TYPE=" + tpu_type + ": " + values.error().message));
  for (auto& value : *values) computed[value.name] = value;
  // The canonical name (v6e-4x4 → v6e-16), as the slice values spell it.
  if (auto it = computed.find("TPU_ACCELERATOR_TYPE"); it != computed.end()) tpu_type = it->second.value;
  given[kTpuType] = {tpu_type, origin};
  given[kNumSlices] = {std::to_string(slices), origin};
  return computed;
}

std::string MissingReport(const std::vector<std::pair<std::string, Reference>>& missing, const Resolver& resolver) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> uses;  // name → "file line[,line...]"
  for (const auto& [file, reference] : missing) {
    auto& list = uses[reference.name];
    if (list.empty()) order.push_back(reference.name);
    const std::string line = std::to_string(reference.line);
    if (!list.empty() && list.back().rfind(file + " line", 0) == 0) {
      list.back() += "," + line;
    } else {
      list.push_back(file + " line " + line);
    }
  }
  std::vector<std::string> parts;
  for (const auto& name : order) {
    std::string part = name + " (" + Join(uses[name], "; ") + ")";
    if (auto note = resolver.notes().find(name); note != resolver.notes().end()) part += ": " + note->second;
    parts.push_back(part);
  }
  return "no value for " + std::to_string(order.size()) + (order.size() == 1 ? " variable: " : " variables: ") +
         Join(parts, "; ") + ". Set them with --set NAME=VALUE or --values FILE.yaml (or --env)";
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& ConfigurationNames() {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"PROJECT_ID", "Google Cloud project (--project, tputrain.yaml, gcloud config)"},
      {"LOCATION", "zone or region (--location)"},
      {"REGION", "region of LOCATION"},
      {"CLUSTER_NAME", "GKE cluster (TPUTRAIN_CLUSTER, tputrain.yaml, gcloud container/cluster)"},
      {"BUCKET", "Cloud Storage bucket name, without gs:// (TPUTRAIN_BUCKET, tputrain.yaml)"},
  };
  return names;
}

std::vector<std::string> EnvironmentTemplateDirs(const core::Env& env) {
  auto dir = env.Get("TPUTRAIN_TEMPLATE_DIR");
  if (!dir || dir->empty()) return {};
  return {*dir};
}

core::Result<Rendered> RenderTemplate(const RenderRequest& request) {
  auto spec = LoadTemplate(request.template_dirs, request.template_name);
  if (!spec) return core::Fail(spec.error());
  auto given = GatherExplicit(request, *spec);
  if (!given) return core::Fail(given.error());
  auto computed = ComputeSlice(*spec, request.slice_values, *given);
  if (!computed) return core::Fail(computed.error());
  Resolver resolver(*spec, std::move(*given), std::move(*computed), request.configuration);
  const Lookup lookup = [&resolver](const std::string& name) { return resolver.Get(name); };

  Rendered rendered{spec->name, {}};
  std::vector<Substituted> outputs;
  std::vector<std::pair<std::string, Reference>> missing;
  for (const auto& file : spec->files) {
    auto output = Substitute(file.text, lookup, file.name);
    if (!output) return core::Fail(output.error());
    if (resolver.error()) return core::Fail(*resolver.error());
    if (!resolver.cycle().empty()) {
      return core::Fail(core::Error::Usage(spec->Where() + "/template.yaml: the default of " + resolver.cycle() +
                                           " refers back to itself"));
    }
    for (const auto& reference : output->missing) missing.push_back({file.name, reference});
    outputs.push_back(std::move(*output));
  }
  if (!missing.empty()) return core::Fail(core::Error::Usage(MissingReport(missing, resolver)));
  for (std::size_t i = 0; i < spec->files.size(); ++i) {
    const auto& file = spec->files[i];
    if (file.yaml) {
      auto status = CheckRenderedYaml(file.name, outputs[i], [&](const std::string& n) { return resolver.TypeOf(n); });
      if (!status) return core::Fail(std::move(status).error());
    }
    rendered.files.push_back({file.name, std::move(outputs[i].text), file.yaml});
  }
  return rendered;
}

core::Result<std::string> ForStdout(const Rendered& rendered) {
  std::vector<std::string> names;
  bool all_yaml = true;
  for (const auto& file : rendered.files) {
    names.push_back(file.name);
    all_yaml = all_yaml && file.yaml;
  }
  if (rendered.files.size() == 1) return rendered.files[0].text;
  if (!all_yaml) {
    return core::Fail(core::Error::Usage("template " + rendered.template_name + " renders " +
                                         std::to_string(names.size()) + " files (" + Join(names, ", ") +
                                         "); write them to a directory with -o DIR"));
  }
  std::string out;
  for (const auto& file : rendered.files) {
    if (!out.empty() && file.text.rfind("---", 0) != 0) out += "---\n";
    out += file.text;
    if (!out.empty() && out.back() != '\n') out += '\n';
  }
  return out;
}

core::Result<std::vector<std::string>> WriteRendered(const Rendered& rendered, const std::string& directory) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error)
    return core::Fail(core::Error::Usage("-o " + directory + ": cannot create the directory: " + error.message()));
  std::vector<std::string> written;
  for (const auto& file : rendered.files) {
    const fs::path path = fs::path(directory) / file.name;
    // O_NOFOLLOW: a symbolic link planted where a file goes is refused, never written through.
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int saved = errno;
      if (saved == ELOOP) {
        return core::Fail(core::Error::Usage("-o " + directory + ": " + path.string() +
                                             " is a symbolic link; tputrain does not write through one"));
      }
      return core::Fail(core::Error::Internal(path.string() + ": cannot write the file: " + std::strerror(saved)));
    }
    size_t done = 0;
    while (done < file.text.size()) {
      const ssize_t n = write(fd, file.text.data() + done, file.text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    if (close(fd) != 0 || done != file.text.size()) {
      return core::Fail(core::Error::Internal(path.string() + ": cannot write the file"));
    }
    written.push_back(path.string());
  }
  return written;
}

std::vector<VariableInfo> DescribeTemplate(const TemplateSpec& spec, const SliceValues& slice_values) {
  std::vector<VariableInfo> rows;
  std::map<std::string, std::vector<std::string>> uses;
  std::vector<std::string> referenced;
  for (const auto& file : spec.files) {
    for (const auto& reference : References(file.text)) {
      auto& list = uses[reference.name];
      if (list.empty()) referenced.push_back(reference.name);
      const std::string where = file.name + ":" + std::to_string(reference.line);
      if (list.empty() || list.back() != where) list.push_back(where);
    }
  }
  for (const auto& variable : spec.variables) {
    for (const auto& reference : References(variable.default_value)) {
      if (uses.emplace(reference.name, std::vector<std::string>{}).second) referenced.push_back(reference.name);
      uses[reference.name].push_back("default of " + variable.name);
    }
  }
  std::map<std::string, ComputedValue> example;
  if (!spec.default_tpu_type.empty()) {
    if (slice_values) {
      if (auto values = slice_values(spec.default_tpu_type, spec.default_slices)) {
        for (auto& value : *values) example[value.name] = value;
      }
    }
    rows.push_back({kTpuType, "string", "input", spec.default_tpu_type,
                    "TPU slice type (v6e-16, v5litepod-32, v6e-4x4); fixes every computed value", uses[kTpuType]});
    rows.push_back(
        {kNumSlices, "int", "input", std::to_string(spec.default_slices), "number of slices", uses[kNumSlices]});
  }
  std::set<std::string> listed = {kTpuType, kNumSlices};
  for (const auto& variable : spec.variables) {
    if (!listed.insert(variable.name).second) continue;
    rows.push_back({variable.name, std::string(TypeName(variable.type)), variable.has_default ? "default" : "required",
                    variable.default_value, variable.meaning, uses[variable.name]});
  }
  for (const auto& name : referenced) {
    if (!listed.insert(name).second) continue;
    VariableInfo info{name, "string", "required", "", "", uses[name]};
    if (auto it = example.find(name); it != example.end()) {
      info = {name,      std::string(TypeName(it->second.type)), "computed", it->second.value, it->second.meaning,
              uses[name]};
    }
    for (const auto& [config, meaning] : ConfigurationNames()) {
      if (config == name) info = {name, "string", "configuration", "", meaning, uses[name]};
    }
    rows.push_back(std::move(info));
  }
  return rows;
}

}  // namespace tputrain::render
