#include "tputrain/http/curl_global.h"

#include <curl/curl.h>

namespace tputrain::http {

CurlGlobal::CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
CurlGlobal::~CurlGlobal() { curl_global_cleanup(); }

}  // namespace tputrain::http
