#include "tputrain/http/transport.h"

#include <algorithm>
#include <cctype>

namespace tputrain::http {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::optional<std::string> FindHeader(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return std::nullopt;
}

core::Result<Response> Transport::Stream(const Request& request, const ChunkHandler& on_chunk) {
  auto response = Send(request);
  if (!response || !response->ok()) return response;  // an error reply keeps its body, as curl's
  std::string body = std::move(response->body);
  response->body.clear();
  if (!body.empty()) on_chunk(body);
  return response;
}

bool IsLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (EqualsIgnoreCase(host, "localhost") || host == "::1") return true;
  if (!host.starts_with("127.")) return false;
  // A dotted quad in 127.0.0.0/8, not a name such as 127.example.com.
  int dots = 0;
  for (char c : host) {
    if (c == '.') {
      ++dots;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return dots == 3;
}

core::Result<UrlParts> ParseUrl(std::string_view url) {
  UrlParts parts;
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return core::Fail(core::Error::Usage("invalid URL '" + std::string(url) + "': expected scheme://host"));
  }
  parts.scheme = std::string(url.substr(0, scheme_end));
  std::transform(parts.scheme.begin(), parts.scheme.end(), parts.scheme.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto rest = url.substr(scheme_end + 3);
  auto path_start = rest.find_first_of("/?#");
  auto authority = rest.substr(0, path_start);
  parts.path_and_query = path_start == std::string_view::npos ? "/" : std::string(rest.substr(path_start));
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  std::string_view host = authority;
  std::string_view port;
  if (authority.starts_with('[')) {
    auto close = authority.find(']');
    if (close == std::string_view::npos) {
      return core::Fail(core::Error::Usage("invalid URL '" + std::string(url) + "': unterminated IPv6 host"));
    }
    host = authority.substr(0, close + 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') port = authority.substr(close + 2);
  } else if (auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) {
    return core::Fail(core::Error::Usage("invalid URL '" + std::string(url) + "': no host"));
  }
  parts.host = std::string(host);
  if (!port.empty()) {
    int value = 0;
    for (char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || value > 65535) {
        return core::Fail(core::Error::Usage("invalid URL '" + std::string(url) + "': bad port"));
      }
      value = value * 10 + (c - '0');
    }
    if (value > 65535) return core::Fail(core::Error::Usage("invalid URL '" + std::string(url) + "': bad port"));
    parts.port = value;
  }
  return parts;
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string PathSegment(std::string_view text) {
  if (text == ".") return "%2E";
  if (text == "..") return "%2E%2E";
  return UrlEncode(text);
}

}  // namespace tputrain::http
