// Names that go into Google API URL paths: the APIs' patterns, checked before any call.
#include <catch2/catch.hpp>

#include "tputrain/gcp/container/types.h"
#include "tputrain/gcp/names.h"
#include "tputrain/gcp/tpu/types.h"

using tputrain::gcp::CheckLocation;
using tputrain::gcp::CheckProjectId;
using tputrain::gcp::CheckResourceId;

TEST_CASE("project ids, locations and resource ids the APIs accept pass") {
  for (const char* project : {"my-project", "p", "tputrain-demo-123456", "example.com:my-project"}) {
    CHECK(CheckProjectId("--project", project));
  }
  for (const char* location : {"us-central1", "us-east5-b", "europe-west4-a", "northamerica-northeast2"}) {
    CHECK(CheckLocation("--location", location));
  }
  for (const char* id : {"c", "ray-tpu", "v6e-16", "a23456789012345678901234567890123456789"}) {
    CHECK(CheckResourceId("NAME", id, 40));
  }
}

TEST_CASE("a name that is not one is one usage line naming its flag") {
  struct Case {
    tputrain::core::Status status;
    std::string message;
  };
  const Case cases[] = {
      {CheckResourceId("NAME", "x/../../../victim", 40),
       "NAME: expected lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen, "
       "at most 40 characters, got 'x/../../../victim'"},
      {CheckResourceId("--cluster", "..", 40), ""},
      {CheckResourceId("NAME", "Ray", 40), ""},
      {CheckResourceId("NAME", "ray-", 40), ""},
      {CheckResourceId("NAME", "", 40), ""},
      {CheckResourceId("NAME", std::string(41, 'a'), 40), ""},
      {CheckProjectId("--project", "Bad Project!"), ""},
      {CheckProjectId("--project", "p/../q"), ""},
      {CheckProjectId("--project", "a234567890123456789012345678901"), ""},
      {CheckProjectId("--project", ":p"), ""},
      {CheckLocation("--location", "US EAST"),
       "--location: expected a region or zone, e.g. us-central1 or us-east5-b, "
       "got 'US EAST'"},
      {CheckLocation("--location", "us-east5/../x"), ""},
      {CheckLocation("--location", "us-east5-bb"), ""},
      {CheckLocation("--location", "-"), ""},
  };
  for (const auto& c : cases) {
    REQUIRE_FALSE(c.status);
    INFO(c.status.error().message);
    CHECK(c.status.error().kind == tputrain::core::ErrorKind::kInvalidArgument);
    CHECK(c.status.error().message.find('\n') == std::string::npos);
    if (!c.message.empty()) CHECK(c.status.error().message == c.message);
  }
}

TEST_CASE("every name part goes into the URL path as one encoded segment") {
  tputrain::gcp::container::NodePoolRef pool{{"p", "us-east5-b", "ray-tpu"}, "x/../../../victim"};
  CHECK(pool.Name() == "projects/p/locations/us-east5-b/clusters/ray-tpu/nodePools/x%2F..%2F..%2F..%2Fvictim");
  tputrain::gcp::tpu::NodeRef node{"p", "us-east5-b", "a b"};
  CHECK(node.Name() == "projects/p/locations/us-east5-b/nodes/a%20b");
}

TEST_CASE("bucket names, service accounts and roles as the APIs spell them") {
  using namespace tputrain::gcp;
  for (const char* bucket : {"ckpt", "my-ckpt_1", "a.b.c", "abc"}) CHECK(CheckBucketName("NAME", bucket));
  for (const char* bucket : {"ab", "-ab", "ab-", "AB", "a/b", "..", "192.168.0.1", "goog-x", "my-google-x", "a b"}) {
    INFO(bucket);
    CHECK_FALSE(CheckBucketName("NAME", bucket));
  }
  CHECK_FALSE(CheckBucketName("NAME", std::string(64, 'a')));
  CHECK(CheckBucketName("NAME", std::string(63, 'a') + "." + std::string(63, 'b')));
  CHECK(CheckServiceAccountId("NAME", "sax-sa1"));
  for (const char* id : {"abc", "Sax-sa", "1sax-sa", "sax-sa-", "sax/sa"})
    CHECK_FALSE(CheckServiceAccountId("NAME", id));
  CHECK(CheckServiceAccountEmail("--gsa", "sax@my-proj.iam.gserviceaccount.com"));
  for (const char* email : {"sax", "a@b@c", "x/../y@p.iam", "sax@", "@p.iam"})
    CHECK_FALSE(CheckServiceAccountEmail("--gsa", email));
  for (const char* role : {"roles/storage.objectUser", "projects/p/roles/myRole", "organizations/1/roles/a_b"}) {
    CHECK(CheckRole("--role", role));
  }
  for (const char* role : {"storage.objectUser", "roles/", "roles/../x", "roles/a b", "projects//roles/x",
                           "folders/1/roles/x", "projects/p/q/roles/x"}) {
    INFO(role);
    CHECK_FALSE(CheckRole("--role", role));
  }
}
