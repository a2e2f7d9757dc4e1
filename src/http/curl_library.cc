#include "curl_library.h"

#include "tputrain/core/shared_library.h"
#include "tputrain/http/curl_preload.h"

namespace tputrain::http {
namespace {

core::Result<CurlLibrary> Load() {
  auto library = core::SharedLibrary::Open("libcurl.so.4", "libcurl4");
  if (!library) return core::Fail(library.error());
  CurlLibrary api;
  library->Resolve("curl_easy_init", api.easy_init);
  library->Resolve("curl_easy_setopt", api.easy_setopt);
  library->Resolve("curl_easy_perform", api.easy_perform);
  library->Resolve("curl_easy_getinfo", api.easy_getinfo);
  library->Resolve("curl_easy_reset", api.easy_reset);
  library->Resolve("curl_easy_cleanup", api.easy_cleanup);
  library->Resolve("curl_easy_strerror", api.easy_strerror);
  library->Resolve("curl_easy_send", api.easy_send);
  library->Resolve("curl_easy_recv", api.easy_recv);
  library->Resolve("curl_slist_append", api.slist_append);
  library->Resolve("curl_slist_free_all", api.slist_free_all);
  library->Resolve("curl_version_info", api.version_info);
  decltype(&curl_global_init) global_init = nullptr;
  library->Resolve("curl_global_init", global_init);
  if (auto complete = library->Complete("libcurl 7.85"); !complete) return core::Fail(complete.error());
  // The process-wide set-up (it initialises OpenSSL, ~6 ms) is never undone: the exit releases it.
  if (CURLcode code = global_init(CURL_GLOBAL_DEFAULT); code != CURLE_OK) {
    return core::Fail(core::Error::Internal(std::string("curl_global_init failed: ") + api.easy_strerror(code)));
  }
  return api;
}

}  // namespace

core::Result<const CurlLibrary*> OpenCurl() { return core::LoadOnce<CurlLibrary>(Load); }

CurlPreload::CurlPreload(core::Timeline* timeline)
    : thread_([timeline] {
        core::Timeline::Span span(timeline, "libcurl.load");
        (void)OpenCurl();  // a failure is kept: the first request reports it
      }) {}

CurlPreload::~CurlPreload() { thread_.join(); }

}  // namespace tputrain::http
