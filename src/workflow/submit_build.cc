#include <cctype>
#include <cstdlib>
#include <ctime>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/ray/entrypoint.h"
#include "tputrain/workflow/submit.h"

namespace tputrain::workflow {
namespace {

// Seed 001's trainer (a JaxTrainer around MaxText's main) and base config, where the
// maxtext-ray-image template's Dockerfile puts them.
constexpr std::string_view kImageLauncher =
    "python /app/maxtext_ray_trainer.py /app/maxtext/src/MaxText/configs/base.yml";
// MaxText 0.2.5 from PyPI: the trainer module picks its packaged base.yml when none is given.
constexpr std::string_view kPipLauncher = "python -m maxtext.trainers.pre_train.train";
constexpr std::string_view kDefaultOutputDir = "/data/";  // the RayCluster template's bucket mount
// Any Ray node can write here; a CPU preset runs on clusters without the bucket mount.
constexpr std::string_view kCpuOutputDir = "/tmp/tputrain-runs/";
constexpr int64_t kSeedSteps = 100;  // seed 001's steps=100

// Ordered key=value arguments where a later value replaces an earlier one in place: MaxText
// must see every key once.
class Arguments {
 public:
  void Set(const std::string& key, const std::string& value) {
    for (auto& [k, v] : items_) {
      if (k == key) {
        v = value;
        return;
      }
    }
    items_.emplace_back(key, value);
  }
  const std::string* Get(const std::string& key) const {
    for (const auto& [k, v] : items_) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

bool ValidKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '.') return false;
  }
  return true;
}

core::Result<std::pair<std::string, std::string>> SplitAssignment(std::string_view flag, std::string_view text) {
  size_t equals = text.find('=');
  if (equals == std::string_view::npos || !ValidKey(text.substr(0, equals))) {
    return core::Fail(core::Error::Usage(std::string(flag) + ": expected KEY=VALUE, got '" + std::string(text) + "'"));
  }
  return std::make_pair(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
}

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  size_t at = 0;
  while (at < text.size()) {
    size_t start = text.find_first_not_of(" \t", at);
    if (start == std::string_view::npos) break;
    size_t end = text.find_first_of(" \t", start);
    words.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    at = end == std::string_view::npos ? text.size() : end;
  }
  return words;
}

std::string DefaultRunName(const std::string& model, core::Clock& clock) {
  std::time_t now = std::chrono::system_clock::to_time_t(clock.WallNow());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  std::string name = model + "-" + stamp;
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_') c = '-';
  }
  return name;
}

// The ICI mesh must use every device of the slice: the product of the ici_*_parallelism
// values equals the device count, or divides it when one axis is -1 (MaxText fills it in).
core::Status CheckIci(const Arguments& args, int devices, const std::string& where) {
  long product = 1;
  int unspecified = 0;
  std::string listed;
  for (const auto& [key, value] : args.items()) {
    if (key.rfind("ici_", 0) != 0 || key.size() < 16 || key.substr(key.size() - 12) != "_parallelism") continue;
    char* end = nullptr;
    long n = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || n == 0 || n < -1) {
      return core::Fail(
          core::Error::Usage("--set " + key + ": expected a positive integer or -1, got '" + value + "'"));
    }
    listed += (listed.empty() ? "" : " × ") + key + "=" + value;
    if (n == -1) {
      ++unspecified;
    } else {
      product *= n;
    }
  }
  bool fits = unspecified == 0 ? product == devices : unspecified == 1 && devices % product == 0;
  if (!fits) {
    return core::Fail(core::Error::Usage("--set: the ICI mesh " + listed + " does not fill the " +
                                         std::to_string(devices) + " devices of " + where +
                                         " (the product must equal the device count; at most one axis may be -1)"));
  }
  return {};
}

bool RunsOnCpu(const catalog::Model& model) {
  for (const auto& arg : model.extra_maxtext_args) {
    if (arg == "hardware=cpu") return true;
  }
  return false;
}

core::Status ResolveSlice(const SubmitSpec& spec, MaxTextJob& job) {
  if (job.cpu) {
    if (!spec.tpu_type.empty()) {
      return core::Fail(core::Error::Usage("--tpu-type: model " + job.model.name +
                                           " runs MaxText on CPU (hardware=cpu); drop --tpu-type"));
    }
    job.devices = 1;
    return {};
  }
  catalog::PlanRequest plan_request;
  plan_request.mode = catalog::WorkloadMode::kTrain;
  auto plan = catalog::PlanSlice(job.model, plan_request);
  if (!plan) return core::Fail(plan.error());
  if (spec.tpu_type.empty()) {
    job.slice = plan->slice;
  } else {
    auto slice = catalog::FindSliceType(spec.tpu_type);
    if (!slice) return core::Fail(slice.error());
    // The planner's floor is for the model's default generation; scale it by HBM per chip.
    double memory_per_chip = slice->generation->hbm_gb_per_chip;
    double chips_needed = plan->memory_gb_per_slice / memory_per_chip;
    if (slice->chips + 1e-9 < chips_needed) {
      return core::Fail(core::Error::Usage(
          "--tpu-type " + spec.tpu_type + ": " + std::to_string(slice->chips) + " chips hold " +
          std::to_string(static_cast<int>(slice->chips * memory_per_chip)) + " GB, and training " + job.model.name +
          " needs about " + std::to_string(static_cast<int>(plan->memory_gb_per_slice + 0.5)) +
          " GB; run `tputrain plan --model " + job.model.name + "` for a slice that fits"));
    }
    job.slice = *slice;
  }
  job.devices = job.slice->chips;
  return {};
}

}  // namespace

core::Result<MaxTextJob> BuildMaxTextJob(const SubmitSpec& spec, core::Clock& clock) {
  if (spec.model.empty()) return core::Fail(core::Error::Usage("--model: required, e.g. --model llama3-8b"));
  auto preset = catalog::FindModel(spec.model);
  if (!preset) return core::Fail(preset.error());
  if (preset->maxtext_model_name.empty()) {
    return core::Fail(core::Error::Usage("--model " + preset->name + ": not a model MaxText trains; " +
                                         "tputrain models lists those it does"));
  }
  MaxTextJob job;
  job.model = *preset;
  auto shape = catalog::TrainingShapeOf(job.model);
  if (!shape) return core::Fail(shape.error());
  job.shape = *shape;
  job.cpu = RunsOnCpu(job.model);
  if (auto sliced = ResolveSlice(spec, job); !sliced) return core::Fail(sliced.error());
  if (spec.steps && *spec.steps <= 0) return core::Fail(core::Error::Usage("--steps: expected a positive number"));
  job.run_name = spec.run_name.empty() ? DefaultRunName(job.model.name, clock) : spec.run_name;
  if (job.run_name.empty() ||
      job.run_name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
          std::string::npos) {
    return core::Fail(core::Error::Usage("--run-name: expected letters, digits, '.', '_' or '-'"));
  }

  // Seed 001's order: output, data, batch, sequence, model, steps, mesh, run name.
  Arguments args;
  std::string_view default_output = job.cpu ? kCpuOutputDir : kDefaultOutputDir;
  args.Set("base_output_directory", spec.output_dir.empty() ? std::string(default_output) : spec.output_dir);
  args.Set("dataset_type", "synthetic");
  args.Set("per_device_batch_size", std::to_string(job.model.per_device_batch_size));
  args.Set("max_target_length", std::to_string(job.model.max_target_length));
  if (job.model.maxtext_model_name != "default") args.Set("model_name", job.model.maxtext_model_name);
  args.Set("steps", std::to_string(kSeedSteps));
  if (job.slice) {
    catalog::IciParallelism ici = catalog::SplitIci(job.slice->chips);
    args.Set("ici_fsdp_parallelism", std::to_string(ici.fsdp));
    args.Set("ici_tensor_parallelism", std::to_string(ici.tensor));
  }
  args.Set("run_name", job.run_name);
  for (const auto& extra : job.model.extra_maxtext_args) {
    auto kv = SplitAssignment("preset", extra);
    if (kv) args.Set(kv->first, kv->second);
  }
  if (spec.steps) args.Set("steps", std::to_string(*spec.steps));
  for (const auto& set : spec.sets) {
    auto kv = SplitAssignment("--set", set);
    if (!kv) return core::Fail(kv.error());
    if (kv->first == "run_name") return core::Fail(core::Error::Usage("--set run_name: use --run-name"));
    args.Set(kv->first, kv->second);
  }
  for (const auto& [key, value] : args.items()) {
    auto applied = catalog::ApplyTrainingOverride(job.shape, key, value);
    if (!applied) return core::Fail(applied.error());
  }
  char* end = nullptr;
  job.steps = std::strtoll(args.Get("steps")->c_str(), &end, 10);
  if (*end != '\0' || job.steps <= 0) return core::Fail(core::Error::Usage("--set steps: expected a positive integer"));
  std::string where = job.slice ? job.slice->accelerator_type : std::string("the CPU host");
  if (auto ici = CheckIci(args, job.devices, where); !ici) return core::Fail(ici.error());

  job.argv = Words(spec.launcher.empty() ? (job.cpu ? kPipLauncher : kImageLauncher) : spec.launcher);
  if (job.argv.empty()) return core::Fail(core::Error::Usage("--launcher: expected a command, e.g. 'python train.py'"));
  for (const auto& [key, value] : args.items()) job.argv.push_back(key + "=" + value);

  job.request.entrypoint = ray::ShellJoin(job.argv);
  job.request.submission_id = spec.submission_id;
  nlohmann::json env_vars = nlohmann::json::object();
  for (const auto& assignment : spec.env) {
    auto kv = SplitAssignment("--env", assignment);
    if (!kv) return core::Fail(kv.error());
    env_vars[kv->first] = kv->second;
  }
  // Ray's log dedup drops the other hosts' identical step lines; keep every line.
  if (!env_vars.contains("RAY_DEDUP_LOGS")) env_vars["RAY_DEDUP_LOGS"] = "0";
  // Without it, jax probes for a TPU first and libtpu prints a misleading error.
  if (job.cpu && !env_vars.contains("JAX_PLATFORMS")) env_vars["JAX_PLATFORMS"] = "cpu";
  job.request.runtime_env["env_vars"] = env_vars;
  if (!spec.working_dir.empty()) {
    if (spec.working_dir.find("://") != std::string::npos) {
      job.request.runtime_env["working_dir"] = spec.working_dir;
    } else {
      job.local_working_dir = spec.working_dir;
    }
  }
  job.request.metadata["tputrain_model"] = job.model.name;
  job.request.metadata["tputrain_run_name"] = job.run_name;

  job.facts.tokens_per_device_step = catalog::TrainingTokensPerDevice(job.shape);
  // For the other shapes (experts, latent attention, ...) the summary reads MaxText's own
  // TFLOP/s from its step lines.
  if (catalog::HasDenseTrainingFlops(*job.model.shape)) {
    job.facts.tflops_per_device_step = catalog::TrainingTflopsPerDevice(job.shape).total_tflops;
  }
  job.facts.devices_per_slice = job.cpu ? 0 : job.devices;
  job.facts.slices = 1;
  if (job.slice) job.facts.peak_tflops_per_device = job.slice->generation->peak_bf16_tflops_per_chip;
  job.facts.steps_requested = job.steps;
  return job;
}

nlohmann::json DescribeJob(const MaxTextJob& job) {
  ray::SubmitRequest shown = job.request;
  nlohmann::json requests = nlohmann::json::array();
  if (!job.local_working_dir.empty()) {
    auto package = ray::PackageWorkingDir(job.local_working_dir);
    if (package) {
      shown.runtime_env["working_dir"] = package->uri();
      requests.push_back(
          {{"method", "PUT"}, {"path", "/api/packages/gcs/" + package->name}, {"bytes", package->archive.size()}});
    } else {
      shown.runtime_env["working_dir"] = job.local_working_dir;
    }
  }
  auto body = ray::SubmitBody(shown, ray::ServerVersion{});
  requests.push_back({{"method", "POST"}, {"path", "/api/jobs/"}, {"body", body ? *body : nlohmann::json(nullptr)}});
  auto flops = catalog::TrainingTflopsPerDevice(job.shape);
  const bool estimated = catalog::HasDenseTrainingFlops(*job.model.shape);
  return {
      {"model", job.model.name},
      {"run_name", job.run_name},
      {"tpu_type", job.slice ? nlohmann::json(job.slice->accelerator_type) : nlohmann::json("cpu")},
      {"devices", job.devices},
      {"steps", job.steps},
      {"tokens_per_device_step", catalog::TrainingTokensPerDevice(job.shape)},
      {"tflops_per_device_step", estimated ? nlohmann::json(flops.total_tflops) : nlohmann::json(nullptr)},
      {"requests", requests},
  };
}

}  // namespace tputrain::workflow
