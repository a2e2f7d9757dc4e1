// What a scan lists and what --delete-leaked then sends, on a scripted transport. (The scan's
// behaviour against the emulator is scan_integration_test's.)
#include <catch2/catch.hpp>

#include "tputrain/workflow/scan.h"

namespace tputrain::workflow {
namespace {

TEST_CASE("the hint after a scan repeats every flag that chose the list") {
  ScanRequest request{"p", {"us-east5-a"}, {"us-east5-a"}, "nightly"};
  request.expired = true;
  CHECK(DeleteLeakedCommand(request, "/tmp/my state") ==
        "tputrain cleanup --scan --expired --delete-leaked --yes --project p --location us-east5-a --run nightly "
        "--state-dir '/tmp/my state'");
  CHECK(DeleteLeakedCommand(ScanRequest{"p", {}, {}, ""}, "") ==
        "tputrain cleanup --scan --delete-leaked --yes --project p");
}

}  // namespace
}  // namespace tputrain::workflow
