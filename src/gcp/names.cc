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

namespace {

bool IsIpv4(std::string_view text) {
  int parts = 0;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || part.size() > 3) return false;
    for (char c : part) {
      if (!Digit(c)) return false;
    }
    ++parts;
    if (dot == std::string_view::npos) return parts == 4;
    start = dot + 1;
  }
}

}  // namespace

core::Status CheckBucketName(std::string_view field, std::string_view bucket) {
  constexpr std::string_view kExpected =
      "a bucket name: 3-63 lowercase letters, digits, '-', '_' or '.', a letter or digit at each end";
  const bool dotted = bucket.find('.') != std::string_view::npos;
  if (bucket.size() < 3 || bucket.size() > (dotted ? 222 : 63)) return Refuse(field, bucket, kExpected);
  auto alnum = [](char c) { return Lower(c) || Digit(c); };
  if (!alnum(bucket.front()) || !alnum(bucket.back())) return Refuse(field, bucket, kExpected);
  size_t run = 0;
  for (char c : bucket) {
    if (!alnum(c) && c != '-' && c != '_' && c != '.') return Refuse(field, bucket, kExpected);
    run = c == '.' ? 0 : run + 1;
    if (run > 63) return Refuse(field, bucket, kExpected);
  }
  if (IsIpv4(bucket)) return Refuse(field, bucket, "a bucket name, not an IP address");
  if (bucket.rfind("goog", 0) == 0 || bucket.find("google") != std::string_view::npos) {
    return Refuse(field, bucket,
                  "a bucket name without \"goog\" at the start or \"google\" in it (reserved by Google)");
  }
  return {};
}

core::Status CheckServiceAccountId(std::string_view field, std::string_view id) {
  if (id.size() < 6 || id.size() > 30 || !IsLabel(id)) {
    return Refuse(field, id,
                  "a service account id: 6-30 lowercase letters, digits and hyphens, starting with a letter and "
                  "not ending with a hyphen");
  }
  return {};
}

core::Status CheckServiceAccountEmail(std::string_view field, std::string_view email) {
  size_t at = email.find('@');
  if (at == std::string_view::npos || email.find('@', at + 1) != std::string_view::npos ||
      !IsLabel(email.substr(0, at)) || !IsDomain(email.substr(at + 1))) {
    return Refuse(field, email, "a service account e-mail, NAME@PROJECT.iam.gserviceaccount.com");
  }
  return {};
}

core::Status CheckRole(std::string_view field, std::string_view role) {
  std::string_view name = role;
  if (role.rfind("roles/", 0) == 0) {
    name = role.substr(6);
  } else {
    // projects/P/roles/NAME or organizations/O/roles/NAME: custom roles.
    size_t first = role.find('/');
    size_t roles = first == std::string_view::npos ? first : role.find("/roles/", first + 1);
    std::string_view kind = role.substr(0, first);
    if (roles == std::string_view::npos || (kind != "projects" && kind != "organizations") || roles == first + 1 ||
        role.substr(first + 1, roles - first - 1).find('/') != std::string_view::npos) {
      return Refuse(field, role, "a role, roles/NAME (e.g. roles/storage.objectUser) or projects/P/roles/NAME");
    }
    name = role.substr(roles + 7);
  }
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) {
    ok = ok && (Lower(c) || Digit(c) || (c >= 'A' && c <= 'Z') || c == '_' || c == '.');
  }
  if (!ok) return Refuse(field, role, "a role, roles/NAME (e.g. roles/storage.objectUser) or projects/P/roles/NAME");
  return {};
}

}  // namespace tputrain::gcp
