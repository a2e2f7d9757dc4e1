#include "tputrain/gcp/iap/tunnel_url.h"

#include <utility>
#include <vector>

#include "tputrain/http/transport.h"

namespace tputrain::gcp::iap {
namespace {

constexpr std::string_view kPathRoot = "/v4";

std::string Query(const std::vector<std::pair<std::string, std::string>>& pieces) {
  std::string query;
  for (const auto& [name, value] : pieces) {
    query += query.empty() ? "?" : "&";
    query += name + "=" + http::UrlEncode(value);
  }
  return query;
}

// scheme://host[:port] and the path root the endpoints go under.
std::pair<std::string, std::string> SplitBase(std::string_view base_url) {
  auto host_start = base_url.find("://");
  host_start = host_start == std::string_view::npos ? 0 : host_start + 3;
  auto path_start = base_url.find('/', host_start);
  if (path_start == std::string_view::npos) return {std::string(base_url), std::string(kPathRoot)};
  std::string path(base_url.substr(path_start));
  if (path == "/") path = kPathRoot;
  return {std::string(base_url.substr(0, path_start)), path};
}

std::string Endpoint(std::string_view base_url, std::string_view endpoint) {
  auto [origin, root] = SplitBase(base_url);
  if (!root.ends_with('/')) root += '/';
  return origin + root + std::string(endpoint);
}

}  // namespace

core::Result<std::string> TunnelBaseUrlFromEnv(const core::Env& env) {
  auto value = env.Get(kTunnelUrlVariable);
  if (!value) return std::string(kDefaultTunnelUrl);
  auto refuse = [&](std::string_view why) {
    std::string message = kTunnelUrlVariable;
    message.append(": ").append(why).append(", got '").append(*value).append("'");
    return core::Fail(core::Error::Usage(std::move(message)));
  };
  if (!value->starts_with("wss://") && !value->starts_with("ws://")) return refuse("expected a wss:// URL");
  auto parts = http::ParseUrl(*value);
  if (!parts || parts->host.empty()) return refuse("expected a URL with a host");
  if (value->find_first_of("?#") != std::string::npos) return refuse("expected a URL without a query");
  return *value;
}

std::string ConnectUrl(std::string_view base_url, const TunnelTarget& target) {
  return Endpoint(base_url, "connect") + Query({{"project", target.project},
                                                {"port", std::to_string(target.port)},
                                                {"newWebsocket", "True"},
                                                {"zone", target.zone},
                                                {"instance", target.instance},
                                                {"interface", target.network_interface}});
}

std::string ReconnectUrl(std::string_view base_url, std::string_view sid, uint64_t bytes_received,
                         std::string_view zone) {
  return Endpoint(base_url, "reconnect") + Query({{"sid", std::string(sid)},
                                                  {"ack", std::to_string(bytes_received)},
                                                  {"newWebsocket", "True"},
                                                  {"zone", std::string(zone)}});
}

}  // namespace tputrain::gcp::iap
