// A property of every Google API client: whatever a name holds, it is exactly one segment of the
// request's path. Random names from an alphabet of path syntax ('/', '.', '%', '?', '#', ';',
// spaces, bytes above 0x7f) go through the real clients; the path keeps its segment count, no
// segment is "." or "..", nothing spills into a query or fragment, and each name's segment
// decodes back to the name.
#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "testing/fake_transport.h"
#include "tputrain/gcp/container/client.h"
#include "tputrain/gcp/iam/client.h"
#include "tputrain/gcp/storage/client.h"
#include "tputrain/gcp/tpu/client.h"

namespace {

using tputrain::testing::FakeTransport;

std::string RandomName(std::mt19937& random) {
  static const std::vector<std::string> pieces = {"a", "z", "0", "-", "_", ".", "..", "/",  "%", "%2F",      "?",   "#",
                                                  ";", "=", "&", " ", "+", ":", "@",  "\\", "~", "\xc3\xa9", "\xff"};
  std::uniform_int_distribution<size_t> length(1, 12);
  std::uniform_int_distribution<size_t> pick(0, pieces.size() - 1);
  std::string name;
  for (size_t i = length(random); i > 0; --i) name += pieces[pick(random)];
  return name;
}

std::string Path(const std::string& url) {
  auto scheme = url.find("://");
  auto slash = url.find('/', scheme + 3);
  return url.substr(slash, url.find_first_of("?#", slash) - slash);
}

std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> segments;
  size_t start = 1;
  while (true) {
    size_t slash = path.find('/', start);
    segments.push_back(path.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) return segments;
    start = slash + 1;
  }
}

std::string Decode(const std::string& segment) {
  std::string out;
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] == '%' && i + 2 < segment.size()) {
      out += static_cast<char>(std::stoi(segment.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += segment[i];
    }
  }
  return out;
}

// One client call with a name in it, and where in the path the name must land.
struct Call {
  const char* what;
  size_t segments;      // the path's segment count, whatever the name
  size_t name_segment;  // the index of the name's segment
  std::function<void(FakeTransport&, const std::string&)> send;
};

const std::string kBase = "https://api.example.test/";

}  // namespace

TEST_CASE("no name changes the segment count of a Google API path", "[property]") {
  namespace container = tputrain::gcp::container;
  namespace tpu = tputrain::gcp::tpu;
  const std::vector<Call> calls = {
      {"container DeleteNodePool", 9, 8,
       [](FakeTransport& t, const std::string& name) {
         (void)container::Client(t, kBase).DeleteNodePool({{"p", "us-east5-b", "c"}, name});
       }},
      {"container GetCluster", 7, 6,
       [](FakeTransport& t, const std::string& name) {
         (void)container::Client(t, kBase).GetCluster({"p", "us-east5-b", name});
       }},
      {"container DeleteCluster (project)", 7, 2,
       [](FakeTransport& t, const std::string& name) {
         (void)container::Client(t, kBase).DeleteCluster({name, "us-east5-b", "c"});
       }},
      {"tpu DeleteNode", 7, 6,
       [](FakeTransport& t, const std::string& name) {
         (void)tpu::Client(t, kBase).DeleteNode({"p", "us-east5-b", name});
       }},
      {"tpu GetNode (zone)", 7, 4,
       [](FakeTransport& t, const std::string& name) {
         (void)tpu::Client(t, kBase).GetNode({"p", name, "n"});
       }},
      {"storage GetBucket", 2, 1,
       [](FakeTransport& t, const std::string& name) {
         (void)tputrain::gcp::storage::Client(t, kBase).GetBucket(name);
       }},
      {"storage SetIamPolicy", 3, 1,
       [](FakeTransport& t, const std::string& name) {
         (void)tputrain::gcp::storage::Client(t, kBase).SetIamPolicy(name, {});
       }},
      {"iam GetServiceAccount", 5, 4,
       [](FakeTransport& t, const std::string& name) {
         (void)tputrain::gcp::iam::Client(t, kBase).GetServiceAccount(name);
       }},
  };
  std::mt19937 random(20261124);  // fixed: a failure is reproducible
  for (const auto& call : calls) {
    for (int i = 0; i < 2000; ++i) {
      const std::string name = RandomName(random);
      FakeTransport transport;
      call.send(transport, name);
      REQUIRE(transport.requests().size() == 1);
      const std::string url = transport.requests().front().url;
      INFO(call.what << ": name '" << name << "' -> " << url);
      REQUIRE(url.find_first_of("#") == std::string::npos);
      const auto segments = Segments(Path(url));
      REQUIRE(segments.size() == call.segments);
      for (const auto& segment : segments) {
        CHECK(segment != ".");
        CHECK(segment != "..");
        CHECK(segment.find_first_of("?# ") == std::string::npos);
      }
      CHECK(Decode(segments.at(call.name_segment)) == name);
    }
  }
}
