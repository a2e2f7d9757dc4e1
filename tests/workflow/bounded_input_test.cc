// What tputrain reads from servers, files and plugins is bounded in size and depth: each client
// parser takes its usual text, and refuses the same text with one field nested 70,000 deep (the
// issue's request), a text past its size bound, and survives bytes that are not UTF-8.
#include <catch2/catch.hpp>

#include <optional>

#include "tputrain/workflow/tpu_vm_ssh.h"
#include "workflow/client_parsers.h"

namespace tputrain::testing {
namespace {

std::string Deep(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// `sample` with one more field: {"deep": VALUE, ...} or "deep: VALUE\n..." for YAML.
std::string WithField(const ClientParser& parser, const std::string& value) {
  if (parser.yaml) return "deep: " + value + "\n" + parser.sample;
  return "{\"deep\": " + value + ", " + parser.sample.substr(1);
}

TEST_CASE("every client parser takes its text, and refuses it nested 70,000 deep or past its size bound") {
  ParserDir dir;
  const std::string deep = Deep(70'000);
  // 66 MiB of JSON (and of YAML): past core::ParseJson's 64 MiB and yaml::Limits' 32 MiB.
  std::string large = "[";
  large.reserve(66 * 1024 * 1024 + 16);
  while (large.size() < 66 * 1024 * 1024) large += "0,0,0,0,0,0,0,0,";
  large += "0]";
  // A billion laughs: ten aliases deep, each ten times the last.
  std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) laughs += ", " + prev;
    laughs += "]\n";
  }
  for (const auto& parser : ClientParsers(dir)) {
    INFO(parser.name);
    if (!parser.sample.empty()) {
      CHECK(parser.accepts(parser.sample));
      CHECK(parser.accepts(WithField(parser, Deep(20))));  // what real answers nest
      CHECK_FALSE(parser.accepts(WithField(parser, deep)));
      if (!parser.takes_large) CHECK_FALSE(parser.accepts(WithField(parser, large)));
    }
    CHECK_FALSE(parser.accepts(deep));
    if (!parser.takes_large) CHECK_FALSE(parser.accepts(large));
    if (parser.yaml) CHECK_FALSE(parser.accepts(laughs));
    // Not UTF-8, and terminal controls: refused or taken, never a crash.
    parser.accepts("{\"name\": \"\xff\xfe\x1b[2J\", \"items\": [\"\xc3\"]}");
    parser.accepts(std::string("\0\0\0\x80", 4));
  }
}

TEST_CASE("a server's text matched by a pattern is never given to std::regex whole") {
  // libstdc++'s std::regex recurses once per character of a `+` or `.*?`: a long enough text
  // from a server overflowed the client's stack.
  const std::string huge(1'000'000, '7');
  auto status =
      k8s::ErrorFromStatus(500,
                           nlohmann::json{{"message",
                                           "failed to create typed patch object (default/p; /v1, Kind=Pod): .spec: "
                                           "&value.valueUnstructured{Value:" +
                                               huge + "} is invalid"}}
                               .dump(),
                           "Pod p");
  CHECK(status.message == "Pod p: invalid manifest: .spec: " + huge + " is invalid");
  auto conflict = k8s::ErrorFromStatus(
      409,
      nlohmann::json{{"message", "Apply failed"},
                     {"details",
                      {{"causes",
                        {{{"reason", "FieldManagerConflict"},
                          {"field", ".spec"},
                          {"message", "conflict with \"" + std::string(1'000'000, 'm') + "\""}}}}}}}
          .dump(),
      "Pod p");
  CHECK(conflict.message.find("is managed by \"mmmm") != std::string::npos);
  auto host_key =
      workflow::KnownHostsLine("tpu.n-0-abcdef", "ssh-ed25519", "ssh-ed25519 " + std::string(1'000'000, 'A'));
  CHECK(host_key);
  CHECK_FALSE(workflow::KnownHostsLine("tpu.n-0-abcdef", "ssh-ed25519", "ssh-ed25519 AAAA!==="));
  // YAML numbers past int64 and past a double, and a plain scalar of a million digits.
  auto objects = k8s::ParseManifests(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: 99999999999999999999\n  b: 1e999\n"
      "  c: 0x" +
          std::string(40, 'f') + "\n  d: " + huge + "\n",
      "-f");
  REQUIRE(objects);
  const auto& data = (*objects)[0].json["data"];
  CHECK(data["a"].is_number_float());
  CHECK(data["b"] == "1e999");
  CHECK(data["c"].is_string());
  CHECK(data["d"] == huge);
}

TEST_CASE("discovery and manifests take answers of another shape as absent, without throwing") {
  // nlohmann's value() throws type_error on these: the client ended with an internal error.
  for (const std::string answer :
       {"[1, 2]", R"({"versions": 5, "groups": [{"versions": [{"groupVersion": 5}, 7]}, "g"], "resources": {}})",
        R"({"versions": ["v1"], "resources": [{"name": "pods", "kind": ["Pod"], "namespaced": "yes"}]})"}) {
    INFO(answer);
    auto transport = Answering(200, answer);
    k8s::Client client(*transport, "https://k8s.test");
    k8s::Discovery discovery(client);
    std::optional<core::Result<k8s::ResourceInfo>> found;
    CHECK_NOTHROW(found.emplace(discovery.Lookup("v1", "Pod")));
    CHECK_FALSE(*found);
  }
  for (const std::string text : {"apiVersion: v1\nkind: ~\nmetadata: {name: c}\n", "apiVersion: v1\nkind:\n"}) {
    std::optional<core::Result<std::vector<k8s::Object>>> objects;
    CHECK_NOTHROW(objects.emplace(k8s::ParseManifests(text, "-f")));
    CHECK_FALSE(*objects);
  }
}

}  // namespace
}  // namespace tputrain::testing
