#include "httplib_request.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>

#include "tputrain/emulator/request_limits.h"

namespace tputrain::emulator {
namespace {

// Set by the pre-routing handler on a GET, HEAD or OPTIONS that carries a body, which is then
// routed as a POST so that a bounded reader reads it.
constexpr char kBodyOnMethod[] = "X-Tputrain-Emulator-Body-On";

bool CarriesBody(const httplib::Request& request) {
  if (request.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos) return true;
  const std::string length = request.get_header_value("Content-Length");
  return !length.empty() && length.find_first_not_of('0') != std::string::npos;
}

// 400, as Google's front end answers a request it will not pass on: a short HTML page.
void Malformed(httplib::Response& response) {
  response.status = 400;
  response.set_content(
      "<!DOCTYPE html>\n<html lang=en><title>Error 400 (Bad Request)</title>\n"
      "<p><b>400.</b> That's an error.\n<p>Your client has issued a malformed or illegal request.\n",
      "text/html; charset=UTF-8");
}

void Reply(const ApiResponse& reply, httplib::Response& response) {
  response.status = reply.status;
  response.set_content(reply.body, reply.content_type.c_str());
}

}  // namespace

ApiRequest FromHttplib(const httplib::Request& request) {
  ApiRequest out;
  out.method = request.method;
  out.path = request.path;
  for (const auto& [name, value] : request.params) out.query.emplace(name, value);
  for (const auto& [name, value] : request.headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    out.headers[lower] = value;
  }
  out.body = request.body;
  return out;
}

void RouteBounded(httplib::Server& server, ApiHandler handle) {
  server.set_payload_max_length(std::max(MaxRequestBytes("/upload/"), MaxRequestBytes("/")));
  server.set_pre_routing_handler([](const httplib::Request& request, httplib::Response&) {
    // httplib's own request object, per request and not const: see the reading handler below.
    auto& routed = const_cast<httplib::Request&>(request);
    routed.headers.erase(kBodyOnMethod);  // only this handler sets it
    if ((request.method == "GET" || request.method == "HEAD" || request.method == "OPTIONS") && CarriesBody(request)) {
      routed.set_header(kBodyOnMethod, request.method);
      routed.method = "POST";
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  auto shared = std::make_shared<ApiHandler>(std::move(handle));
  auto reading = [shared](const httplib::Request& request, httplib::Response& response,
                          const httplib::ContentReader& reader) {
    ApiRequest api = FromHttplib(request);
    const size_t limit = MaxRequestBytes(request.path);
    // An announced length within the bound is taken at once, not grown into (twice the memory).
    const std::string announced = request.get_header_value("Content-Length");
    if (!announced.empty() && announced.size() <= 12 &&
        announced.find_first_not_of("0123456789") == std::string::npos && std::stoull(announced) <= limit) {
      api.body.reserve(std::stoull(announced));
    }
    bool too_large = false;
    auto keep = [&](const char* data, size_t length) {
      if (!too_large && api.body.size() + length <= limit) {
        api.body.append(data, length);
      } else if (!too_large) {
        too_large = true;
        std::string().swap(api.body);
      }
      return true;  // read on to its end, even dropped: the answer follows the whole request
    };
    const bool read = request.is_multipart_form_data()
                          ? reader([](const httplib::MultipartFormData&) { return true; }, keep)
                          : reader(keep);
    if (too_large || (!read && response.status == 413)) return Reply(RequestTooLarge(), response);
    // Unreadable framing; a GET with a body; a form: Google's APIs take none of them.
    if (!read || request.has_header(kBodyOnMethod) || request.is_multipart_form_data()) return Malformed(response);
    (*shared)(std::move(api), request, response);
  };
  server.Get(".*", [shared](const httplib::Request& request, httplib::Response& response) {
    (*shared)(FromHttplib(request), request, response);
  });
  server.Post(".*", reading);
  server.Put(".*", reading);
  server.Patch(".*", reading);
  server.Delete(".*", reading);
}

void ListenAlone(httplib::Server& server) {
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
}

}  // namespace tputrain::emulator
