// "Did you mean ...?": the candidates nearest a mistyped word.
#include <catch2/catch.hpp>

#include "tputrain/core/nearest.h"

using tputrain::core::Nearest;
using Words = std::vector<std::string>;

TEST_CASE("a typo is one edit, a swap of neighbours included") {
  CHECK(Nearest("--tpu-typ", {"--tpu-type", "--tpu-topology", "--type"}) == Words{"--tpu-type"});
  CHECK(Nearest("craete", {"create", "delete", "list"}) == Words{"create"});
  CHECK(Nearest("--projcet", {"--project", "--billing-project"}) == Words{"--project"});
}

TEST_CASE("a word that starts a candidate is as near as a typo; ties are all offered") {
  CHECK(Nearest("--accel", {"--accelerator", "--async"}) == Words{"--accelerator"});
  CHECK(Nearest("--zon", {"--zone", "--zones"}) == Words{"--zone", "--zones"});
}

TEST_CASE("nothing close, nothing offered; the word itself is not offered back") {
  CHECK(Nearest("--xyzzy", {"--zone", "--project"}).empty());
  CHECK(Nearest("list", {"list"}).empty());
}
