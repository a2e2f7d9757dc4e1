#pragma once

// libcurl, opened on the first request instead of linked. Loading it costs about 5 ms at every
// start (it brings some 35 shared libraries: Kerberos, LDAP, SSH, ...), which commands that send
// nothing (--version, --help, render, plan, cost) paid for nothing.

#include <curl/curl.h>

#include "tputrain/core/result.h"

namespace tputrain::http {

// The libcurl functions tputrain calls, resolved from the library's ABI (SONAME libcurl.so.4).
struct CurlLibrary {
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_perform) easy_perform = nullptr;
  decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&curl_easy_reset) easy_reset = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
  decltype(&curl_easy_send) easy_send = nullptr;
  decltype(&curl_easy_recv) easy_recv = nullptr;
  decltype(&curl_slist_append) slist_append = nullptr;
  decltype(&curl_slist_free_all) slist_free_all = nullptr;
  decltype(&curl_version_info) version_info = nullptr;
};

// Opens libcurl and runs its process-wide set-up (which initialises OpenSSL) once per process,
// from any thread; later calls return the same table. Fails, naming the library and the package
// that provides it, when it cannot be loaded or lacks a function.
core::Result<const CurlLibrary*> OpenCurl();

}  // namespace tputrain::http
