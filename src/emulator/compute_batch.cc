#include "compute_batch.h"

#include <cctype>

// Google's batch endpoint as gcloud compute uses it: several requests (deleting two firewall
// rules, polling two operations, or any call with compute/force_batch_request) sent as one
// multipart/mixed POST whose parts are application/http requests, each answered by a part
// carrying its HTTP response, Content-ID "<response-ID>" for request "<ID>". Each part goes
// through the emulator's ordinary dispatch, so it is logged, faulted and validated as itself.
namespace tputrain::emulator {
namespace {

std::string Lower(std::string text) {
  for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Trim(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(start, end - start + 1));
}

std::string PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

// Splits "headers<blank line>rest" at the first empty line (CRLF or LF), parsing the headers.
std::string_view SplitHeaders(std::string_view text, std::map<std::string, std::string>& headers,
                              std::string* first_line) {
  bool first = first_line != nullptr;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) {
      if (first) continue;  // blank lines before the request line
      break;
    }
    if (first) {
      *first_line = std::string(line);
      first = false;
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    headers[Lower(Trim(line.substr(0, colon)))] = Trim(line.substr(colon + 1));
  }
  return text;
}

std::optional<std::string> Boundary(const ApiRequest& request) {
  auto it = request.headers.find("content-type");
  if (it == request.headers.end() || Lower(it->second).rfind("multipart/mixed", 0) != 0) return std::nullopt;
  size_t at = Lower(it->second).find("boundary=");
  if (at == std::string::npos) return std::nullopt;
  std::string boundary = it->second.substr(at + 9);
  boundary = boundary.substr(0, boundary.find(';'));
  boundary = Trim(boundary);
  if (boundary.size() >= 2 && boundary.front() == '"' && boundary.back() == '"') {
    boundary = boundary.substr(1, boundary.size() - 2);
  }
  if (boundary.empty()) return std::nullopt;
  return boundary;
}

struct Part {
  std::string content_id;
  ApiRequest request;
};

std::optional<Part> ParsePart(std::string_view text, const ApiRequest& outer) {
  Part part;
  std::map<std::string, std::string> mime;
  text = SplitHeaders(text, mime, nullptr);
  part.content_id = mime.count("content-id") ? mime["content-id"] : "";
  std::string request_line;
  std::string_view body = SplitHeaders(text, part.request.headers, &request_line);
  size_t space = request_line.find(' ');
  size_t last = request_line.rfind(' ');
  if (space == std::string::npos || last == space) return std::nullopt;
  part.request.method = request_line.substr(0, space);
  std::string target = request_line.substr(space + 1, last - space - 1);
  // gcloud writes the path; a client may write the whole URL.
  if (auto scheme = target.find("://"); scheme != std::string::npos) {
    auto slash = target.find('/', scheme + 3);
    target = slash == std::string::npos ? "/" : target.substr(slash);
  }
  std::string query = target.find('?') == std::string::npos ? "" : target.substr(target.find('?') + 1);
  part.request.path = PercentDecode(target.substr(0, target.find('?')));
  for (size_t start = 0; start < query.size();) {
    size_t amp = query.find('&', start);
    std::string pair = query.substr(start, amp == std::string::npos ? std::string::npos : amp - start);
    size_t eq = pair.find('=');
    if (!pair.empty()) {
      part.request.query.emplace(PercentDecode(pair.substr(0, eq)),
                                 eq == std::string::npos ? "" : PercentDecode(pair.substr(eq + 1)));
    }
    if (amp == std::string::npos) break;
    start = amp + 1;
  }
  part.request.body = Trim(body);
  // The parts carry no credentials of their own: the batch's are theirs.
  for (const char* inherited : {"authorization", "host", "x-forwarded-proto"}) {
    auto it = outer.headers.find(inherited);
    if (it != outer.headers.end() && !part.request.headers.count(inherited)) {
      part.request.headers[inherited] = it->second;
    }
  }
  return part;
}

std::string StatusText(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 429:
      return "Too Many Requests";
    case 503:
      return "Service Unavailable";
    default:
      return status < 400 ? "OK" : "Error";
  }
}

}  // namespace

bool IsComputeBatch(const ApiRequest& request) {
  return request.method == "POST" && request.path == "/batch/compute/v1";
}

ApiResponse HandleComputeBatch(const ApiRequest& request, const std::function<ApiResponse(const ApiRequest&)>& handle) {
  auto boundary = Boundary(request);
  if (!boundary) {
    return ErrorFor(ErrorShape::kComputeLegacy, core::ErrorKind::kInvalidArgument,
                    "Failed to parse batch request, error: the Content-Type is not multipart/mixed with a boundary.");
  }
  const std::string delimiter = "--" + *boundary;
  std::vector<Part> parts;
  std::string_view body = request.body;
  size_t at = body.find(delimiter);
  while (at != std::string_view::npos) {
    size_t start = at + delimiter.size();
    if (body.substr(start, 2) == "--") break;  // the closing delimiter
    size_t next = body.find(delimiter, start);
    std::string_view text = body.substr(start, next == std::string_view::npos ? std::string_view::npos : next - start);
    // The rest of the delimiter's line (transport padding) is not the part's.
    text = text.find('\n') == std::string_view::npos ? std::string_view() : text.substr(text.find('\n') + 1);
    auto part = ParsePart(text, request);
    // A batch inside a batch is refused, as Google does: it would also recurse without bound.
    if (part && IsComputeBatch(part->request)) part.reset();
    if (!part) {
      return ErrorFor(ErrorShape::kComputeLegacy, core::ErrorKind::kInvalidArgument,
                      "Failed to parse batch request, error: a part is not an HTTP request.");
    }
    parts.push_back(std::move(*part));
    at = next;
  }
  const std::string out_boundary = "batch_tputrain_emulator_" + std::to_string(parts.size());
  std::string out;
  for (const auto& part : parts) {
    ApiResponse response = handle(part.request);
    std::string id = part.content_id;
    if (id.size() >= 2 && id.front() == '<' && id.back() == '>') id = "<response-" + id.substr(1);
    out += "--" + out_boundary + "\r\nContent-Type: application/http\r\nContent-ID: " + id + "\r\n\r\n";
    out += "HTTP/1.1 " + std::to_string(response.status) + " " + StatusText(response.status) + "\r\n";
    out += "Content-Type: " + response.content_type + "; charset=UTF-8\r\n";
    out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n\r\n";
    out += response.body + "\r\n";
  }
  out += "--" + out_boundary + "--\r\n";
  ApiResponse reply;
  reply.body = std::move(out);
  reply.content_type = "multipart/mixed; boundary=" + out_boundary;
  return reply;
}

}  // namespace tputrain::emulator
