#include "tputrain/http/curl_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>

#include "curl_library.h"
#include "tputrain/core/version.h"

namespace tputrain::http {
namespace {

struct TransferState {
  std::string body;
  Headers headers;
  const ChunkHandler* on_chunk = nullptr;
  bool stopped_by_handler = false;
  const CurlLibrary* api = nullptr;
  CURL* curl = nullptr;
  std::optional<bool> streaming;  // decided at the first body byte, once the status is known
  size_t max_body = 0;            // of a body kept whole
  bool body_too_large = false;
  size_t header_bytes = 0;
};

// What a reply's headers may hold in all: curl bounds each line, not their number.
constexpr size_t kMaxHeaderBytes = 1024 * 1024;

std::string SizeText(size_t bytes) {
  constexpr size_t kMiB = 1024 * 1024;
  return bytes % kMiB == 0 ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes) + " bytes";
}

// Only a successful reply's body streams to the reader; an error reply's body (a Kubernetes
// Status, a 401) is kept whole in Response.body, as Send returns it, so that a decorator may
// resend a refused stream without the reader ever seeing the refusal.
bool StreamsToHandler(TransferState& state) {
  if (!state.streaming) {
    long status = 0;
    state.api->easy_getinfo(state.curl, CURLINFO_RESPONSE_CODE, &status);
    state.streaming = status >= 200 && status < 300;
  }
  return *state.streaming;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  size_t length = size * count;
  if (state->on_chunk != nullptr && StreamsToHandler(*state)) {
    if (!(*state->on_chunk)(std::string_view(data, length))) {
      state->stopped_by_handler = true;
      return 0;  // aborts the transfer
    }
  } else {
    if (state->body.size() + length > state->max_body) {
      state->body_too_large = true;
      return 0;  // aborts the transfer
    }
    state->body.append(data, length);
  }
  return length;
}

// libcurl calls it about once a second even while nothing arrives; non-zero aborts.
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancel = static_cast<const core::CancelToken*>(user);
  return cancel->cancelled() ? 1 : 0;
}

std::string Trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  std::string_view line(data, size * count);
  state->header_bytes += line.size();
  if (state->header_bytes > kMaxHeaderBytes) return 0;  // aborts the transfer
  if (line.starts_with("HTTP/")) {
    state->headers.clear();  // a new response (after a 100 Continue or a redirect)
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    state->headers.emplace_back(Trim(line.substr(0, colon)), Trim(line.substr(colon + 1)));
  }
  return size * count;
}

core::Error TransportError(const CurlLibrary& api, CURLcode code, const std::string& url, const char* detail) {
  core::ErrorKind kind = core::ErrorKind::kUnavailable;
  if (code == CURLE_OPERATION_TIMEDOUT) kind = core::ErrorKind::kDeadlineExceeded;
  if (code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE || code == CURLE_SSL_CERTPROBLEM) {
    kind = core::ErrorKind::kPermissionDenied;
  }
  std::string message = "cannot reach " + url + ": " + (detail[0] != '\0' ? detail : api.easy_strerror(code));
  auto error = core::Error::Make(kind, message);
  error.where = "http";
  return error;
}

// A request's phases as libcurl timed them, each from the start of the transfer: name lookup,
// connect, TLS handshake (with the CA store's loading), the request sent, the first byte of the
// answer, the last. A reused connection has no lookup, connect or handshake.
void AddPhases(core::Timeline& timeline, const CurlLibrary& api, CURL* curl, core::Timeline::Clock::time_point start) {
  const std::pair<CURLINFO, const char*> marks[] = {
      {CURLINFO_NAMELOOKUP_TIME_T, "http.dns"},           {CURLINFO_CONNECT_TIME_T, "http.connect"},
      {CURLINFO_APPCONNECT_TIME_T, "http.tls"},           {CURLINFO_PRETRANSFER_TIME_T, "http.send"},
      {CURLINFO_STARTTRANSFER_TIME_T, "http.first_byte"}, {CURLINFO_TOTAL_TIME_T, "http.rest"}};
  curl_off_t before = 0;
  for (const auto& [info, name] : marks) {
    curl_off_t at = 0;
    if (api.easy_getinfo(curl, info, &at) != CURLE_OK || at <= before) continue;
    timeline.Add(name, start + std::chrono::microseconds(before), start + std::chrono::microseconds(at));
    before = at;
  }
}

}  // namespace

core::Status CheckUrlAllowed(const std::string& url, const std::string& plain_http_host) {
  auto parts = ParseUrl(url);
  if (!parts) return core::Fail(parts.error());
  if (parts->scheme == "https") return {};
  if (parts->scheme == "http" && IsLoopbackHost(parts->host)) return {};
  if (parts->scheme == "http" && !plain_http_host.empty() && parts->host == plain_http_host) return {};
  if (parts->scheme == "http") {
    return core::Fail(core::Error::Usage("refusing plain http to " + parts->host +
                                         ": only loopback hosts may be reached without TLS (use https)"));
  }
  return core::Fail(
      core::Error::Usage("unsupported URL scheme '" + parts->scheme + "' in " + url + " (expected http or https)"));
}

CurlTransport::CurlTransport(CurlOptions options) : options_(std::move(options)) {
  if (options_.user_agent.empty()) options_.user_agent = std::string("tputrain/") + core::kVersion;
}

CurlTransport::~CurlTransport() {
  if (idle_handles_.empty()) return;  // nothing was sent: libcurl may never have been opened
  auto api = OpenCurl();
  if (!api) return;
  for (void* handle : idle_handles_) (*api)->easy_cleanup(static_cast<CURL*>(handle));
}

void* CurlTransport::TakeIdle() {
  std::lock_guard lock(mutex_);
  if (idle_handles_.empty()) return nullptr;
  void* handle = idle_handles_.back();
  idle_handles_.pop_back();
  return handle;
}

void CurlTransport::Release(void* handle) {
  std::lock_guard lock(mutex_);
  idle_handles_.push_back(handle);
}

core::Result<Response> CurlTransport::Send(const Request& request) { return Perform(request, nullptr); }

core::Result<Response> CurlTransport::Stream(const Request& request, const ChunkHandler& on_chunk) {
  return Perform(request, &on_chunk);
}

core::Result<Response> CurlTransport::Perform(const Request& request, const ChunkHandler* on_chunk) {
  if (auto allowed = CheckUrlAllowed(request.url, options_.plain_http_host); !allowed)
    return core::Fail(allowed.error());
  core::Timeline::Span loading(options_.timeline, "libcurl");
  auto opened = OpenCurl();
  loading.End();
  if (!opened) return core::Fail(opened.error());
  const CurlLibrary& api = **opened;
  CURL* curl = static_cast<CURL*>(TakeIdle());
  if (curl == nullptr) curl = api.easy_init();
  if (curl == nullptr) return core::Fail(core::Error::Internal("curl_easy_init failed"));
  api.easy_reset(curl);

  TransferState state;
  state.api = &api;
  state.on_chunk = on_chunk;
  state.curl = curl;
  state.max_body = request.max_response_bytes > 0 ? request.max_response_bytes : options_.max_response_bytes;
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_slist* header_list = nullptr;
  bool has_content_type = false;
  for (const auto& [name, value] : request.headers) {
    header_list = api.slist_append(header_list, (name + ": " + value).c_str());
    if (FindHeader({{name, value}}, "content-type")) has_content_type = true;
  }
  if (!request.body.empty() && !has_content_type) {
    header_list = api.slist_append(header_list, "Content-Type: application/json");
  }
  header_list = api.slist_append(header_list, "Expect:");  // no 100-continue round trip

  auto timeout = request.timeout.count() > 0 ? request.timeout : options_.total_timeout;
  api.easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  // The path goes out as built: libcurl would otherwise resolve "/x/../.." into another resource
  // (a name is never a path; servers refuse a literal ".." segment).
  api.easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
  api.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "HEAD") api.easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
    api.easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    api.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  api.easy_setopt(curl, CURLOPT_HTTPHEADER, header_list);
  api.easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str());
  api.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  if (on_chunk == nullptr || request.timeout.count() > 0) {
    api.easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  }
  api.easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  api.easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (options_.insecure_skip_tls_verify) {
    api.easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    api.easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!options_.ca_bundle.empty()) api.easy_setopt(curl, CURLOPT_CAINFO, options_.ca_bundle.c_str());
  if (!options_.ca_pem.empty()) {
    curl_blob ca{options_.ca_pem.data(), options_.ca_pem.size(), CURL_BLOB_NOCOPY};
    api.easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
    api.easy_setopt(curl, CURLOPT_CAPATH, nullptr);  // the system directory must not widen the trust
  }
  if (!options_.client_cert_pem.empty()) {
    curl_blob cert{options_.client_cert_pem.data(), options_.client_cert_pem.size(), CURL_BLOB_NOCOPY};
    curl_blob key{options_.client_key_pem.data(), options_.client_key_pem.size(), CURL_BLOB_NOCOPY};
    api.easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    api.easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert);
    api.easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
    api.easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
  }
  if (!options_.plain_http_host.empty()) api.easy_setopt(curl, CURLOPT_NOPROXY, "*");
  api.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  api.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  api.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // gzip/deflate, decoded by curl
  api.easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  api.easy_setopt(curl, CURLOPT_WRITEDATA, &state);
  api.easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  api.easy_setopt(curl, CURLOPT_HEADERDATA, &state);
  api.easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  if (request.cancel != nullptr) {
    api.easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    api.easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
    api.easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<core::CancelToken*>(request.cancel));
  }

  const auto performed = core::Timeline::Clock::now();
  CURLcode code = api.easy_perform(curl);
  if (options_.timeline != nullptr) AddPhases(*options_.timeline, api, curl, performed);
  long status = 0;
  api.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  api.slist_free_all(header_list);
  Release(curl);

  if (code == CURLE_ABORTED_BY_CALLBACK && request.cancel != nullptr && request.cancel->cancelled()) {
    auto error = core::Error::Cancelled();
    error.where = "http";
    return core::Fail(error);
  }
  if (state.body_too_large || state.header_bytes > kMaxHeaderBytes) {
    const std::string what = state.body_too_large ? "the reply is larger than " + SizeText(state.max_body)
                                                  : "the reply's headers are larger than " + SizeText(kMaxHeaderBytes);
    auto error =
        core::Error::Make(core::ErrorKind::kResourceExhausted, request.method + " " + request.url + ": " + what);
    error.where = "http";
    return core::Fail(error);
  }
  if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && state.stopped_by_handler)) {
    return core::Fail(TransportError(api, code, request.url, error_buffer));
  }
  Response response;
  response.status = static_cast<int>(status);
  response.headers = std::move(state.headers);
  response.body = std::move(state.body);
  return response;
}

}  // namespace tputrain::http
