#include <catch2/catch.hpp>

#include "tputrain/k8s/names.h"

TEST_CASE("namespaces and object names as the API server checks them") {
  using tputrain::k8s::CheckNamespace;
  using tputrain::k8s::CheckObjectName;
  for (const char* ns : {"default", "ray-1", "0abc"}) CHECK(CheckNamespace("--ksa", ns));
  const std::string too_long(64, 'a');
  for (const std::string ns : {"", "Default", "-a", "a-", "a.b", "a/b", too_long.c_str()}) {
    INFO(ns);
    CHECK_FALSE(CheckNamespace("--ksa", ns));
  }
  for (const char* name : {"ray-ksa", "a.b.c", "sa1"}) CHECK(CheckObjectName("--ksa", name));
  for (const std::string name : {"", "b/c", "A", "a..b", ".a", "a."}) {
    INFO(name);
    CHECK_FALSE(CheckObjectName("--ksa", name));
  }
  auto refused = CheckObjectName("--ksa", "b/c");
  CHECK(refused.error().message.rfind("--ksa: expected a Kubernetes name", 0) == 0);
}
