#include "tputrain/core/resource_name.h"

#include <vector>

namespace tputrain::core {
namespace {

std::vector<std::string_view> Segments(std::string_view name) {
  std::vector<std::string_view> segments;
  for (;;) {
    const auto slash = name.find('/');
    segments.push_back(name.substr(0, slash));
    if (slash == std::string_view::npos) return segments;
    name.remove_prefix(slash + 1);
  }
}

}  // namespace

std::string SegmentAfter(std::string_view name, std::string_view collection) {
  const auto segments = Segments(name);
  for (size_t i = 0; i + 1 < segments.size(); ++i) {
    if (segments[i] == collection) return std::string(segments[i + 1]);
  }
  return "";
}

std::string LastSegment(std::string_view name) {
  const auto slash = name.rfind('/');
  return std::string(slash == std::string_view::npos ? name : name.substr(slash + 1));
}

std::string LocationOfName(std::string_view name) {
  for (const char* collection : {"locations", "zones", "regions"}) {
    if (auto location = SegmentAfter(name, collection); !location.empty()) return location;
  }
  const auto segments = Segments(name);
  if (segments.size() > 2 && segments[0] == "projects" && segments[2] == "global") return "global";
  return "";
}

}  // namespace tputrain::core
