#include "tputrain/yaml/to_json.h"

#include <catch2/catch.hpp>

#include "tputrain/yaml/bounded.h"

namespace tputrain::yaml {
namespace {

nlohmann::json Converted(const std::string& text) {
  auto document = Load(text, "test");
  REQUIRE(document);
  return ToJson(*document);
}

// What a runtime env file and a manifest alike are read as: YAML 1.1's plain scalars, as the
// Ray CLI's PyYAML and the API server's go-yaml read them.
TEST_CASE("plain scalars resolve as YAML 1.1; quoted ones stay strings") {
  const auto json = Converted(
      "env_vars: {A: '1', B: 2}\n"
      "flags: [true, False, yes, off, ~, null, 0x1F, 017, 1_000, 1.5, 1e3, .inf, text]\n"
      "quoted: \"true\"\n"
      "empty:\n");
  CHECK(json["env_vars"]["A"] == "1");
  CHECK(json["env_vars"]["B"] == 2);
  CHECK(json["flags"] ==
        nlohmann::json::parse(R"([true, false, true, false, null, null, 31, 15, 1000, 1.5, 1000.0, ".inf", "text"])"));
  CHECK(json["quoted"] == "true");
  CHECK(json["empty"].is_null());
}

}  // namespace
}  // namespace tputrain::yaml
