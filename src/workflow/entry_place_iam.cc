#include "entry_place_parts.h"
#include "tputrain/core/json_fields.h"
#include "tputrain/core/resource_name.h"

namespace tputrain::workflow {

std::string ShortEmail(const std::string& email) {
  constexpr std::string_view kServiceAccountDomain = ".iam.gserviceaccount.com";
  if (entry_place_parts::EndsWith(email, kServiceAccountDomain)) {
    return email.substr(0, email.size() - kServiceAccountDomain.size());
  }
  return email;
}

namespace {

using namespace entry_place_parts;

// A Kubernetes service account ("ksa NS/NAME") in either of workload identity's spellings, a
// Google service account by its short email; anything else as written.
std::string ShortMember(const std::string& member) {
  const std::string account = "serviceAccount:";
  if (member.rfind(account, 0) == 0) {
    const std::string rest = member.substr(account.size());
    const auto open = rest.find(".svc.id.goog[");
    if (open != std::string::npos && rest.back() == ']') {
      const auto start = open + std::string_view(".svc.id.goog[").size();
      return "ksa " + rest.substr(start, rest.size() - start - 1);
    }
    return ShortEmail(rest);
  }
  if (member.rfind("principal://", 0) == 0) {
    const std::string ns = core::SegmentAfter(member, "ns");
    const std::string name = core::SegmentAfter(member, "sa");
    if (!ns.empty() && !name.empty()) return "ksa " + ns + "/" + name;
  }
  return member;
}

}  // namespace

EntryPlace entry_place_parts::IamMemberPlace(const std::string& key, const nlohmann::json& details) {
  std::string target = core::StringAt(details, "target");
  std::string resource = core::StringAt(details, "resource");
  std::string role = core::StringAt(details, "role");
  std::string member = core::StringAt(details, "member");
  if (role.empty()) {  // the key alone: TARGET/RESOURCE|ROLE|MEMBER
    const auto fields = Split(key, '|');
    if (fields.size() == 3) {
      const auto slash = fields[0].find('/');
      target = fields[0].substr(0, slash);
      resource = slash == std::string::npos ? "" : fields[0].substr(slash + 1);
      role = fields[1];
      member = fields[2];
    }
  }
  if (role.empty()) return {key, "-"};
  const std::string short_role = role.rfind("roles/", 0) == 0 ? role.substr(6) : role;
  const std::string on = target == "service-account" ? ShortEmail(resource) : resource;
  return {short_role + " for " + ShortMember(member), target.empty() ? "-" : target + " " + on};
}

}  // namespace tputrain::workflow
