// tputrain's parameter count of every model in the table against MaxText's own: the pinned
// MaxText (scripts/peers/maxtext.sh's venv) builds each config's decoder abstractly and sums its
// weights (tests/maxtext/maxtext_params.py), as its `number parameters` line does.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/scoped_process.h"
#include "tputrain/catalog/models.h"

namespace tputrain::testing {
namespace {

std::string MaxTextPython() {
  const char* cache = getenv("TPUTRAIN_TEST_CACHE");
  std::string base =
      cache != nullptr && cache[0] != '\0' ? cache : std::string(getenv("HOME")) + "/.cache/tputrain-test";
  return base + "/maxtext/bin/python";
}

// Where tputrain's arithmetic is knowingly short of MaxText's, the most it may be short, and why.
struct Gap {
  double fraction;
  const char* why;
};
const std::map<std::string, Gap> kGaps = {
    // DeepSeek 4's compressed attention, hash-routed layers and hyper-connections are counted as
    // DeepSeek V3's latent attention and experts.
    {"deepseek4-tiny", {0.03, "DeepSeek 4's compressed attention is counted as latent attention"}},
    {"deepseek4-284b", {0.03, "DeepSeek 4's compressed attention is counted as latent attention"}},
    // MaxText's fp8 configs keep a scale per weight block beside the weights.
    {"qwen3.5-35b-a3b-fp8", {0.0001, "fp8 block scales"}},
    {"qwen3.5-397b-a17b-fp8", {0.0001, "fp8 block scales"}},
};

// Configs MaxText cannot build offline, and why.
const std::map<std::string, const char*> kUnbuildable = {
    {"deepseek-custom", "its Engram layers load a tokenizer from the Hugging Face Hub (hf_access_token)"},
};

}  // namespace

TEST_CASE("every model's parameters are MaxText's own count of its config", "[integration]") {
  std::vector<std::string> argv = {MaxTextPython(),
                                   std::string(TPUTRAIN_SOURCE_DIR) + "/tests/maxtext/maxtext_params.py"};
  for (const auto& model : catalog::Models()) {
    if (model.origin == catalog::ModelOrigin::kMaxText && kUnbuildable.count(model.name) == 0) {
      argv.push_back(model.name);
    }
  }
  auto result = RunProcess(ProcessOptions{argv, {{"JAX_PLATFORMS", "cpu"}}, "", "/tmp"}, std::chrono::seconds(3000));
  INFO(result.err.substr(result.err.size() > 3000 ? result.err.size() - 3000 : 0));
  REQUIRE(result.exit_code == 0);
  std::istringstream lines(result.out);
  std::string line;
  size_t compared = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '{') continue;
    auto theirs = nlohmann::json::parse(line);
    const std::string name = theirs["model"];
    INFO(name << ": " << line);
    REQUIRE(theirs.contains("parameters"));
    auto ours = catalog::FindModel(name);
    REQUIRE(ours);
    const double maxtext = theirs["parameters"].get<double>();
    const auto gap = kGaps.find(name);
    if (gap == kGaps.end()) {
      CHECK(ours->parameters == maxtext);
    } else {
      INFO(gap->second.why);
      CHECK(std::abs(ours->parameters - maxtext) <= gap->second.fraction * maxtext);
    }
    ++compared;
  }
  CHECK(compared == argv.size() - 2);
}

}  // namespace tputrain::testing
