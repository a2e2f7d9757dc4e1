#include "curl_library.h"

#include <catch2/catch.hpp>
#include <string>

namespace tputrain::http {
namespace {

TEST_CASE("libcurl is opened once, with every function tputrain calls") {
  auto first = OpenCurl();
  REQUIRE(first.has_value());
  auto second = OpenCurl();
  REQUIRE(second.has_value());
  CHECK(*first == *second);  // one table per process, whatever the caller

  const CurlLibrary& api = **first;
  CHECK(api.easy_init != nullptr);
  CHECK(api.easy_setopt != nullptr);
  CHECK(api.easy_perform != nullptr);
  CHECK(api.easy_getinfo != nullptr);
  CHECK(api.easy_reset != nullptr);
  CHECK(api.easy_cleanup != nullptr);
  CHECK(api.easy_strerror != nullptr);
  CHECK(api.easy_send != nullptr);
  CHECK(api.easy_recv != nullptr);
  CHECK(api.slist_append != nullptr);
  CHECK(api.slist_free_all != nullptr);
  REQUIRE(api.version_info != nullptr);

  // The options the transports set (CURLOPT_PROTOCOLS_STR) need 7.85: the package's Depends.
  const curl_version_info_data* info = api.version_info(CURLVERSION_NOW);
  REQUIRE(info != nullptr);
  CHECK(info->version_num >= 0x075500);
  CHECK(std::string(api.easy_strerror(CURLE_COULDNT_CONNECT)) == "Couldn't connect to server");
}

TEST_CASE("an easy handle from the opened library takes options and is released") {
  auto api = OpenCurl();
  REQUIRE(api.has_value());
  CURL* curl = (*api)->easy_init();
  REQUIRE(curl != nullptr);
  CHECK((*api)->easy_setopt(curl, CURLOPT_URL, "http://127.0.0.1:1/") == CURLE_OK);
  CHECK((*api)->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK);
  (*api)->easy_cleanup(curl);
}

}  // namespace
}  // namespace tputrain::http
