#include <fstream>
#include <sstream>

#include "tputrain/core/file.h"
#include "tputrain/core/json.h"
#include "tputrain/ray/jobs_client.h"

namespace tputrain::ray {
namespace {

std::string Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

core::Result<http::Headers> HeadersFromFlags(const std::vector<std::string>& flags) {
  http::Headers headers;
  for (const auto& flag : flags) {
    auto colon = flag.find(':');
    std::string name = colon == std::string::npos ? "" : Trim(flag.substr(0, colon));
    if (name.empty() || name.find_first_of(" \t\r\n") != std::string::npos) {
      return core::Fail(core::Error::Usage("--header: expected NAME:VALUE, got '" + flag.substr(0, 40) + "'"));
    }
    headers.emplace_back(name, Trim(flag.substr(colon + 1)));
  }
  return headers;
}

// RAY_JOB_HEADERS holds a JSON object, as the Ray CLI's --headers takes it.
core::Result<http::Headers> HeadersFromJson(const std::string& text) {
  nlohmann::json json = core::ParseJson(text, "").value_or(nullptr);
  if (!json.is_object()) {
    return core::Fail(core::Error::Usage("RAY_JOB_HEADERS: expected a JSON object of header names to values"));
  }
  http::Headers headers;
  for (const auto& [name, value] : json.items()) {
    if (!value.is_string()) {
      return core::Fail(core::Error::Usage("RAY_JOB_HEADERS: the value of '" + name + "' must be a string"));
    }
    headers.emplace_back(name, value.get<std::string>());
  }
  return headers;
}

bool IsCredentialHeader(std::string_view name) {
  std::string lower(name);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "authorization" || lower == "x-ray-authorization" || lower == "proxy-authorization" ||
         lower == "cookie";
}

core::Result<std::optional<std::string>> RayToken(const core::Env& env) {
  if (auto token = env.Get("RAY_AUTH_TOKEN")) return std::optional<std::string>(Trim(*token));
  std::optional<std::string> path = env.Get("RAY_AUTH_TOKEN_PATH");
  if (!path && env.Get("RAY_AUTH_MODE").value_or("") == "token") path = env.Home() + "/.ray/auth_token";
  if (!path) return std::optional<std::string>();
  auto text = core::ReadFile(*path, "the Ray token file", 64 * core::kKiB);
  if (!text) return core::Fail(text.error());
  return std::optional<std::string>(Trim(*text));
}

}  // namespace

core::Result<std::string> NormalizeAddress(std::string_view address) {
  std::string url = Trim(address);
  if (url.empty()) return core::Fail(core::Error::Usage("--address: empty Ray dashboard address"));
  if (url.find("://") == std::string::npos) url = "http://" + url;
  auto parts = http::ParseUrl(url);
  if (!parts) return core::Fail(core::Error::Usage("--address: " + parts.error().message));
  if (parts->scheme != "http" && parts->scheme != "https") {
    return core::Fail(
        core::Error::Usage("--address: expected the dashboard's http(s)://HOST:PORT (e.g. "
                           "http://127.0.0.1:8265), got scheme '" +
                           parts->scheme + "'"));
  }
  while (url.ends_with('/')) url.pop_back();
  return url;
}

core::Result<ClientOptions> ResolveClientOptions(const ConnectionFlags& flags, const core::Env& env,
                                                 const std::optional<std::string>& configured_address,
                                                 core::Redactor* secrets) {
  std::optional<std::string> address;
  if (!flags.address.empty()) address = flags.address;
  if (!address) address = env.Get("RAY_ADDRESS");
  if (!address) address = configured_address;
  if (!address) {
    return core::Fail(
        core::Error::Usage("no Ray dashboard address: pass --address http://HOST:8265, or set RAY_ADDRESS or "
                           "ray_address in tputrain.yaml"));
  }
  ClientOptions options;
  auto normalized = NormalizeAddress(*address);
  if (!normalized) return core::Fail(normalized.error());
  options.address = *normalized;
  auto headers = flags.headers.empty() && env.Get("RAY_JOB_HEADERS") ? HeadersFromJson(*env.Get("RAY_JOB_HEADERS"))
                                                                     : HeadersFromFlags(flags.headers);
  if (!headers) return core::Fail(headers.error());
  options.headers = *headers;
  auto token = RayToken(env);
  if (!token) return core::Fail(token.error());
  if (*token && !http::FindHeader(options.headers, "x-ray-authorization")) {
    // X-Ray-Authorization, not Authorization: an apiserver proxy strips the latter.
    options.headers.emplace_back("X-Ray-Authorization", "Bearer " + **token);
  }
  if (secrets != nullptr) {
    for (const auto& [name, value] : options.headers) {
      if (!IsCredentialHeader(name)) continue;
      secrets->Hold(value);
      // "Bearer <token>": the token alone is what a server would echo.
      if (auto space = value.find(' '); space != std::string::npos) secrets->Hold(Trim(value.substr(space + 1)));
    }
  }
  return options;
}

}  // namespace tputrain::ray
