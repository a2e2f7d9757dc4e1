#include <map>

#include <catch2/catch.hpp>

#include "substitute.h"
#include "yaml_check.h"

using tputrain::render::CheckRenderedYaml;
using tputrain::render::PlainKind;
using tputrain::render::ResolvePlain;
using tputrain::render::ValueType;

namespace {

// Renders `text` with `values` and runs the YAML checks; "" when they pass, else the message.
std::string Check(const std::string& text, std::map<std::string, std::string> values,
                  std::map<std::string, ValueType> types = {}) {
  auto rendered = tputrain::render::Substitute(
      text,
      [&](const std::string& name) -> std::optional<std::string> {
        auto it = values.find(name);
        if (it == values.end()) return std::nullopt;
        return it->second;
      },
      "test.yaml");
  REQUIRE(rendered);
  auto status = CheckRenderedYaml("test.yaml", *rendered, [&](const std::string& name) {
    auto it = types.find(name);
    return it == types.end() ? ValueType::kString : it->second;
  });
  return status ? "" : status.error().message;
}

const char* kHead = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n";

}  // namespace

TEST_CASE("plain scalars resolve the way Kubernetes' YAML 1.1 reader does") {
  CHECK(ResolvePlain("4") == PlainKind::kInt);
  CHECK(ResolvePlain("0755") == PlainKind::kInt);
  CHECK(ResolvePlain("0x1F") == PlainKind::kInt);
  CHECK(ResolvePlain("-12_000") == PlainKind::kInt);
  CHECK(ResolvePlain("089") == PlainKind::kFloat);
  CHECK(ResolvePlain("1.5") == PlainKind::kFloat);
  CHECK(ResolvePlain("1e3") == PlainKind::kFloat);
  CHECK(ResolvePlain(".inf") == PlainKind::kFloat);
  CHECK(ResolvePlain("true") == PlainKind::kBool);
  CHECK(ResolvePlain("on") == PlainKind::kBool);
  CHECK(ResolvePlain("No") == PlainKind::kBool);
  CHECK(ResolvePlain("y") == PlainKind::kBool);
  CHECK(ResolvePlain("~") == PlainKind::kNull);
  CHECK(ResolvePlain("null") == PlainKind::kNull);
  CHECK(ResolvePlain("4x4") == PlainKind::kString);
  CHECK(ResolvePlain("v6e-16") == PlainKind::kString);
  CHECK(ResolvePlain("1.2.3") == PlainKind::kString);
  CHECK(ResolvePlain("e3") == PlainKind::kString);
  CHECK(ResolvePlain("_1") == PlainKind::kString);
  CHECK(ResolvePlain(std::string(100000, '7')) == PlainKind::kInt);  // no recursion per character
}

TEST_CASE("a quoted reference keeps any value a string") {
  const std::string text = std::string(kHead) + "  chips: \"${CHIPS}\"\n  flag: \"${FLAG}\"\n";
  CHECK(Check(text, {{"CHIPS", "4"}, {"FLAG", "on"}}).empty());
}

TEST_CASE("an unquoted string value that YAML would retype is caught, naming the variable") {
  const std::string text = std::string(kHead) + "  chips: ${CHIPS}\n";
  for (const std::string value : {"4", "true", "on", "0755", "1e3", "null", "~"}) {
    INFO(value);
    const auto message = Check(text, {{"CHIPS", value}});
    CHECK_THAT(message, Catch::Contains("${CHIPS}=\"" + value + "\""));
    CHECK_THAT(message, Catch::Contains("test.yaml:6"));
    CHECK_THAT(message, Catch::Contains("quote the reference"));
  }
  CHECK(Check(text, {{"CHIPS", "four"}}).empty());
}

TEST_CASE("an int variable must read as an integer where it is unquoted") {
  const std::string text =
      "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc\nspec:\n  replicas: ${N}\n";
  CHECK(Check(text, {{"N", "2"}}, {{"N", ValueType::kInt}}).empty());
  CHECK_THAT(Check(text, {{"N", "two"}}, {{"N", ValueType::kInt}}), Catch::Contains("not an integer"));
}

TEST_CASE("a value that breaks out of its quotes or adds structure is caught") {
  const std::string quoted = std::string(kHead) + "  sa: \"${SA}\"\n";
  CHECK_THAT(Check(quoted, {{"SA", "a\"b"}}), Catch::Contains("${SA}"));
  CHECK_THAT(Check(quoted, {{"SA", "x\\ny"}}), Catch::Contains("changes the YAML"));
  const std::string plain = std::string(kHead) + "  sa: ${SA}\n";
  CHECK_THAT(Check(plain, {{"SA", "x\n  hostNetwork: \"true\""}}), Catch::Contains("${SA}"));
  CHECK_THAT(Check(plain, {{"SA", "[a, b]"}}), Catch::Contains("structure"));
  CHECK_THAT(Check(plain, {{"SA", "a # comment"}}), Catch::Contains("${SA}"));
  CHECK_THAT(Check(plain, {{"SA", "x\n---\napiVersion: v1"}}), Catch::Contains("${SA}"));
}

TEST_CASE("every document needs apiVersion, kind and metadata.name") {
  CHECK_THAT(Check("kind: ConfigMap\nmetadata:\n  name: a\n", {}), Catch::Contains("no apiVersion"));
  CHECK_THAT(Check("apiVersion: v1\nmetadata:\n  name: a\n", {}), Catch::Contains("no kind"));
  CHECK_THAT(Check("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {}\n", {}),
             Catch::Contains("no metadata.name"));
  CHECK_THAT(Check("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"${N}\"\n", {{"N", ""}}),
             Catch::Contains("no metadata.name"));
  CHECK_THAT(Check("- a\n- b\n", {}), Catch::Contains("not a mapping"));
  CHECK_THAT(Check("", {}), Catch::Contains("no Kubernetes object"));
  CHECK(Check("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n", {}).empty());
}

TEST_CASE("duplicate keys and unparsable output are errors") {
  CHECK_THAT(Check(std::string(kHead) + "  a: x\n  a: y\n", {}), Catch::Contains("duplicate key 'a'"));
  CHECK_THAT(Check(std::string(kHead) + "  a: [x\n", {}), Catch::Contains("not valid YAML"));
}

TEST_CASE("streams that would never end yaml-cpp's LoadAll are errors, not hangs") {
  CHECK_THAT(Check(",", {}), Catch::Contains("not valid YAML"));
  CHECK_THAT(Check(std::string(kHead) + "  a: x\n,\n", {}), Catch::Contains("not valid YAML"));
  CHECK_THAT(Check(std::string(kHead) + "  a: ${V}\n", {{"V", "x\n,"}}), Catch::Contains("${V}"));
}

TEST_CASE("an anchor aliased inside itself is refused, not followed forever") {
  CHECK_THAT(Check("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: &x [*x]\n", {}),
             Catch::Contains("nested deeper"));
}

TEST_CASE("document markers split the stream; lines count from the start of the file") {
  const std::string two =
      "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: B\nmetadata:\n"
      "  labels: {}\n";
  CHECK_THAT(Check(two, {}), Catch::Contains("test.yaml:6: document 2 (B) has no metadata.name"));
  CHECK(Check("# leading comment\n---\napiVersion: v1\nkind: A\nmetadata:\n  name: a\n...\n", {}).empty());
}
