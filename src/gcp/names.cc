#include "tputrain/gcp/names.h"

#include <string>

namespace tputrain::gcp {
namespace {

bool Lower(char c) { return c >= 'a' && c <= 'z'; }
bool Digit(char c) { return c >= '0' && c <= '9'; }

// [a-z]([-a-z0-9]*[a-z0-9])?
bool IsLabel(std::string_view text) {
  if (text.empty() || !Lower(text.front()) || text.back() == '-') return false;
  for (char c : text) {
    if (!Lower(c) && !Digit(c) && c != '-') return false;
  }
  return true;
}

// example.com, a.b.example
bool IsDomain(std::string_view text) {
  if (text.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty()) return false;
    for (char c : part) {
      if (!Lower(c) && !Digit(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

core::Status Refuse(std::string_view field, std::string_view value, std::string_view expected) {
  return core::Fail(core::Error::Usage(std::string(field) + ": expected " + std::string(expected) + ", got '" +
                                       std::string(value) + "'"));
}

}  // namespace

core::Status CheckProjectId(std::string_view field, std::string_view project) {
  std::string_view id = project;
  if (size_t colon = project.rfind(':'); colon != std::string_view::npos) {
    if (!IsDomain(project.substr(0, colon))) {
      return Refuse(field, project, "a project id (my-project, or example.com:my-project)");
    }
    id = project.substr(colon + 1);
  }
  if (id.size() > 30 || !IsLabel(id)) {
    return Refuse(field, project,
                  "a project id: lowercase letters, digits and hyphens, starting with a letter, at most 30 characters");
  }
  return {};
}

core::Status CheckLocation(std::string_view field, std::string_view location) {
  // <area>-<place><digits>[-<zone letter>]: us-central1, europe-west4-a, northamerica-northeast2-c
  size_t dash = location.find('-');
  bool ok = dash != std::string_view::npos && dash > 0;
  for (size_t i = 0; ok && i < dash; ++i) ok = Lower(location[i]);
  std::string_view rest = ok ? location.substr(dash + 1) : std::string_view();
  size_t zone_dash = rest.find('-');
  std::string_view region_part = rest.substr(0, zone_dash);
  size_t digits = region_part.find_first_of("0123456789");
  ok = ok && digits != std::string_view::npos && digits > 0;
  for (size_t i = 0; ok && i < region_part.size(); ++i) {
    ok = i < digits ? Lower(region_part[i]) : Digit(region_part[i]);
  }
  if (ok && zone_dash != std::string_view::npos) {
    std::string_view zone = rest.substr(zone_dash + 1);
    ok = zone.size() == 1 && Lower(zone[0]);
  }
  if (!ok) return Refuse(field, location, "a region or zone, e.g. us-central1 or us-east5-b");
  return {};
}

core::Status CheckResourceId(std::string_view field, std::string_view id, size_t max_length) {
  if (id.size() > max_length || !IsLabel(id)) {
    return Refuse(field, id,
                  "lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen, at "
                  "most " +
                      std::to_string(max_length) + " characters");
  }
  return {};
}

}  // namespace tputrain::gcp
