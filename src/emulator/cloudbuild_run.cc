// How an emulated Cloud Build advances, lazily, on the emulator's clock: QUEUED at create;
// WORKING after a quarter of --op-latency (the source is "fetched"); the steps after half of it
// (a `docker build` step fails as docker does when its Dockerfile is missing; no step runs);
// the images are pushed after three quarters (registered in Artifact Registry, or the build
// fails as docker push does when the repository does not exist); SUCCESS at the full latency.
// The log object grows a few lines per phase and says plainly that nothing was built.
#include <openssl/evp.h>

#include <array>
#include <set>

#include "cloudbuild_build.h"
#include "operations.h"
#include "tputrain/emulator/handlers.h"

namespace tputrain::emulator::cloudbuild {
namespace {

using nlohmann::json;

constexpr int kDone = 4;

std::string StepLabel(size_t index) { return "Step #" + std::to_string(index); }

void FetchSource(json& world, json& build, int64_t now_ms) {
  build["status"] = "WORKING";
  build["startTime"] = Rfc3339(now_ms);
  std::string text = "starting build \"" + build["id"].get<std::string>() + "\"\n\nFETCHSOURCE\n";
  const json& context = build["_context"];
  std::string dockerfile = "no docker build step";
  for (const auto& check : build["_checks"]) {
    if (check.is_null()) continue;
    dockerfile =
        check["found"].get<bool>() ? "Dockerfile found" : "no Dockerfile at " + check["dockerfile"].get<std::string>();
    break;
  }
  if (build.contains("source")) {
    const json& source = build["sourceProvenance"]["resolvedStorageSource"];
    text += "Fetching storage object: gs://" + source.value("bucket", "") + "/" + source.value("object", "") + "#" +
            source.value("generation", "") + "\n";
  }
  text += "tputrain emulator: this build is emulated; no container was built. Context: " +
          std::to_string(context.value("files", 0)) + " files, " + std::to_string(context.value("bytes", 0)) +
          " bytes, " + dockerfile + ".\n";
  AppendLog(world, build, text, now_ms);
}

void RunSteps(json& world, json& build, int64_t now_ms) {
  std::string text = "BUILD\n";
  if (!build.contains("steps")) build["steps"] = json::array();
  auto& steps = build["steps"];
  const std::string now = Rfc3339(now_ms);
  for (size_t i = 0; i < steps.size(); ++i) {
    auto& step = steps[i];
    const json& check = build["_checks"][i];
    const std::string label = StepLabel(i);
    text += "Starting " + label + "\n";
    step["timing"] = {{"startTime", now}, {"endTime", now}};
    if (!check.is_null() && !check["found"].get<bool>()) {
      step["status"] = "FAILURE";
      const std::string name = step.value("name", "");
      const std::string failed =
          "build step " + std::to_string(i) + " \"" + name + "\" failed: step exited with non-zero status: 1";
      text += label + ": unable to prepare context: unable to evaluate symlinks in Dockerfile path: lstat " +
              check["dockerfile"].get<std::string>() + ": no such file or directory\n";
      text += "Finished " + label + "\nERROR\nERROR: " + failed + "\n";
      AppendLog(world, build, text, now_ms);
      Finish(build, "FAILURE", "USER_BUILD_STEP", "Build step failure: " + failed, now_ms);
      return;
    }
    step["status"] = "SUCCESS";
    if (!check.is_null()) {
      text += label + ": tputrain emulator: docker build not run (emulated); " +
              check["dockerfile"].get<std::string>() + " found in the context\n";
    } else {
      text += label + ": tputrain emulator: step not run (emulated)\n";
    }
    text += "Finished " + label + "\n";
  }
  AppendLog(world, build, text, now_ms);
}

void PushImages(json& world, json& build, int64_t now_ms) {
  const json images = build.value("images", json::array());
  json& results = build["results"];
  results["buildStepImages"] = json::array();
  for (const auto& step : build.value("steps", json::array())) {
    // The digest of the builder image's name: no builder image was pulled.
    results["buildStepImages"].push_back("sha256:" + Sha256Hex(step.value("name", "")));
  }
  if (images.empty()) return;
  std::set<std::string> built;
  for (const auto& check : build["_checks"]) {
    if (check.is_null()) continue;
    for (const auto& tag : check["tags"]) built.insert(tag.get<std::string>());
  }
  std::string text = "PUSH\n";
  const std::string digest = build["_digest"];
  const std::string now = Rfc3339(now_ms);
  results["images"] = json::array();
  for (const auto& image : images) {
    const std::string tag = image;
    if (!built.count(tag)) {
      text += "ERROR\nERROR: failed to find one or more images after execution of build steps: [\"" + tag + "\"]\n";
      AppendLog(world, build, text, now_ms);
      Finish(build, "FAILURE", "PUSH_IMAGE_NOT_FOUND", "Final image not found: " + tag, now_ms);
      return;
    }
    text += "Pushing " + tag + "\n";
    if (IsArtifactRegistryDockerTag(tag)) {
      auto failed = PushDockerImage(world, tag, digest, build.value("_sourceBytes", int64_t{0}), now_ms);
      if (failed) {
        text += "The push refers to repository [" + tag.substr(0, tag.rfind(':')) + "]\n" + *failed +
                "\nERROR\nERROR: failed to push because we ran out of retries.\n";
        AppendLog(world, build, text, now_ms);
        Finish(build, "FAILURE", "PUSH_FAILED", "Unable to push " + tag + ": " + *failed, now_ms);
        return;
      }
      text += "tputrain emulator: registered " + tag + " in Artifact Registry with digest " + digest +
              " (the sha256 of the uploaded source archive; no image exists)\n";
    } else {
      text += "tputrain emulator: " + tag + " is not an Artifact Registry docker path; recorded in the results only\n";
    }
    results["images"].push_back(
        {{"name", tag}, {"digest", digest}, {"pushTiming", {{"startTime", now}, {"endTime", now}}}});
  }
  AppendLog(world, build, text, now_ms);
}

void Advance(json& world, json& build, int phase, int64_t now_ms) {
  build["_phase"] = phase;
  switch (phase) {
    case 1:
      FetchSource(world, build, now_ms);
      break;
    case 2:
      RunSteps(world, build, now_ms);
      break;
    case 3:
      PushImages(world, build, now_ms);
      break;
    default:
      AppendLog(world, build, "DONE\n", now_ms);
      Finish(build, "SUCCESS", "", "", now_ms);
  }
}

}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

void ScheduleNextPhase(json& build) {
  const int next = build.value("_phase", 0) + 1;
  const int64_t latency = build.value("_latency", int64_t{0});
  if (IsTerminal(build)) {
    EndSteps(build);
  } else if (latency < 0 && next >= 2) {
    HoldStep(build);  // stuck: it started and never ends
  } else {
    // Each phase at its own time, however late a request notices it.
    ScheduleStep(build, build.value("_created", int64_t{0}) + std::max<int64_t>(latency, 0) * next / 4);
  }
}

bool IsTerminal(const json& build) {
  const std::string status = build.value("status", "");
  return status != "QUEUED" && status != "WORKING" && status != "PENDING";
}

void AppendLog(json& world, const json& build, const std::string& text, int64_t now_ms) {
  if (!build.contains("_log")) return;
  const std::string bucket = build["_log"]["bucket"], object = build["_log"]["object"];
  if (!world["buckets"].contains(bucket)) return;
  const json* existing = FindStoredObject(world, bucket, object);
  std::string bytes = existing != nullptr ? ObjectBytes(*existing) : "";
  bytes += text;
  StoreObject(world, bucket, object, bytes, {{"contentType", "text/plain; charset=utf-8"}}, now_ms);
}

void Finish(json& build, const std::string& status, const std::string& failure_type, const std::string& detail,
            int64_t now_ms) {
  build["status"] = status;
  build["finishTime"] = Rfc3339(now_ms);
  build["_phase"] = kDone;
  if (!failure_type.empty()) {
    build["failureInfo"] = {{"type", failure_type}, {"detail", detail}};
    build["statusDetail"] = detail;
  }
}

}  // namespace tputrain::emulator::cloudbuild

namespace tputrain::emulator {

void StepBuild(nlohmann::json& world, nlohmann::json& build, int64_t at_ms, const EmulatorConfig&) {
  if (!cloudbuild::IsTerminal(build)) cloudbuild::Advance(world, build, build.value("_phase", 0) + 1, at_ms);
  cloudbuild::ScheduleNextPhase(build);
}

}  // namespace tputrain::emulator
