#include "tputrain/catalog/gke_versions.h"

#include <charconv>

namespace tputrain::catalog {
namespace {

std::optional<long> Number(std::string_view text) {
  long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<GkeVersion> ParseGkeVersion(std::string_view text) {
  GkeVersion version;
  std::string_view numbers = text;
  std::string_view build;
  if (auto gke = text.find("-gke."); gke != std::string_view::npos) {
    numbers = text.substr(0, gke);
    build = text.substr(gke + 5);
  }
  while (true) {
    auto dot = numbers.find('.');
    auto part = Number(numbers.substr(0, dot));
    if (!part || version.parts.size() == 3) return std::nullopt;
    version.parts.push_back(*part);
    if (dot == std::string_view::npos) break;
    numbers.remove_prefix(dot + 1);
  }
  if (version.parts.size() < 2) return std::nullopt;  // "1" alone is no GKE version
  if (text.find("-gke.") != std::string_view::npos) {
    auto number = Number(build);
    if (!number || version.parts.size() != 3) return std::nullopt;
    version.parts.push_back(*number);
  }
  return version;
}

bool BelowMinimum(const GkeVersion& version, const GkeVersion& minimum) {
  for (size_t i = 0; i < version.parts.size() && i < minimum.parts.size(); ++i) {
    if (version.parts[i] != minimum.parts[i]) return version.parts[i] < minimum.parts[i];
  }
  return false;  // equal as far as both go
}

const std::string& MinimumGkeVersion(const TpuGeneration& generation, bool autopilot) {
  return autopilot ? generation.min_autopilot_version : generation.min_gke_version;
}

core::Status CheckGkeVersion(const TpuGeneration& generation, std::string_view version, bool autopilot,
                             std::string_view flag) {
  const std::string& minimum = MinimumGkeVersion(generation, autopilot);
  auto given = ParseGkeVersion(version);
  auto least = ParseGkeVersion(minimum);
  if (!given || !least || !BelowMinimum(*given, *least)) return {};
  return core::Fail(core::Error::Usage(std::string(flag) + ": " + generation.family + " needs GKE " +
                                       (autopilot ? "Autopilot " : "") + minimum + " or later, got " +
                                       std::string(version)));
}

}  // namespace tputrain::catalog
