// What people read on stderr: a task's state once, its outcome once.
#include <catch2/catch.hpp>

#include <sstream>

#include "output/terminal_reporter.h"

namespace tputrain::cli {
namespace {

TEST_CASE("without a terminal an outcome in the words of the last state is not said twice") {
  std::ostringstream err;
  core::Redactor redactor;
  TerminalReporter reporter(err, /*is_tty=*/false, false, false, redactor);
  reporter.Progress("build 0f3c", "QUEUED");
  reporter.Progress("build 0f3c", "WORKING");
  reporter.Progress("build 0f3c", "WORKING");
  reporter.Progress("build 0f3c", "SUCCESS");
  reporter.Done("build 0f3c", "SUCCESS");
  CHECK(err.str() == "build 0f3c: QUEUED\nbuild 0f3c: WORKING\nbuild 0f3c: SUCCESS\n");
  // Another outcome is said; so is the same task's next run.
  reporter.Progress("upload", "uploading 2 KiB");
  reporter.Done("upload", "uploaded gs://b/source.tgz");
  reporter.Done("build 0f3c", "SUCCESS");
  CHECK(err.str() ==
        "build 0f3c: QUEUED\nbuild 0f3c: WORKING\nbuild 0f3c: SUCCESS\nupload: uploading 2 KiB\n"
        "upload: uploaded gs://b/source.tgz\nbuild 0f3c: SUCCESS\n");
}

TEST_CASE("on a terminal the live line gives way to the outcome, said once") {
  std::ostringstream err;
  core::Redactor redactor;
  TerminalReporter reporter(err, /*is_tty=*/true, false, false, redactor);
  reporter.Progress("build 0f3c", "WORKING");
  reporter.Progress("build 0f3c", "SUCCESS");
  reporter.Done("build 0f3c", "SUCCESS");
  CHECK(err.str() == "build 0f3c: WORKING\r\033[Kbuild 0f3c: SUCCESS\r\033[Kbuild 0f3c: SUCCESS\n");
}

TEST_CASE("a server's escape sequences and stray bytes are printed as escapes, never sent to the terminal") {
  std::ostringstream err;
  core::Redactor redactor;
  TerminalReporter reporter(err, /*is_tty=*/true, false, false, redactor);
  reporter.Progress("build 0f3c", "WORKING\x1b[2J");
  reporter.Warn(
      "build 0f3c failed:\n\x1b]0;pwned\x07 step 2 \xc2\x9b"
      "31m \xff");
  CHECK(err.str() ==
        "build 0f3c: WORKING\\x1b[2J\r\033[KWARNING: build 0f3c failed:\n\\x1b]0;pwned\\x07 step 2 \\x9b31m "
        "\\xff\n");
}

}  // namespace
}  // namespace tputrain::cli
