// What people read on stderr: a task's state once, its outcome once.
#include <catch2/catch.hpp>

#include <sstream>

#include "output/terminal_reporter.h"

namespace tputrain::cli {
namespace {

TEST_CASE("without a terminal an outcome in the words of the last state is not said twice") {
  std::ostringstream err;
  core::Redactor redactor;
  TerminalReporter reporter(err, /*is_tty=*/false, /*width=*/80, false, false, redactor);
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
  TerminalReporter reporter(err, /*is_tty=*/true, /*width=*/80, false, false, redactor);
  reporter.Progress("build 0f3c", "WORKING");
  reporter.Progress("build 0f3c", "SUCCESS");
  reporter.Done("build 0f3c", "SUCCESS");
  CHECK(err.str() == "build 0f3c: WORKING\r\033[Kbuild 0f3c: SUCCESS\r\033[Kbuild 0f3c: SUCCESS\n");
}

TEST_CASE("a server's escape sequences and stray bytes are printed as escapes, never sent to the terminal") {
  std::ostringstream err;
  core::Redactor redactor;
  TerminalReporter reporter(err, /*is_tty=*/true, /*width=*/80, false, false, redactor);
  reporter.Progress("build 0f3c", "WORKING\x1b[2J");
  reporter.Warn(
      "build 0f3c failed:\n\x1b]0;pwned\x07 step 2 \xc2\x9b"
      "31m \xff");
  // The message goes above the live line, which is drawn again below it.
  CHECK(err.str() ==
        "build 0f3c: WORKING\\x1b[2J\r\033[KWARNING: build 0f3c failed:\n\\x1b]0;pwned\\x07 step 2 \\x9b31m "
        "\\xff\nbuild 0f3c: WORKING\\x1b[2J");
}

TEST_CASE("on a terminal, tasks under way at once have a line each, rewritten in place") {
  std::ostringstream err;
  core::Redactor redactor;
  TerminalReporter reporter(err, /*is_tty=*/true, /*width=*/80, false, false, redactor);
  reporter.Progress("nodepool tpu-0", "creating 1s");
  reporter.Progress("nodepool tpu-1", "creating 1s");
  reporter.Progress("nodepool tpu-0", "creating 2s");
  reporter.Done("nodepool tpu-0", "created");
  reporter.Progress("nodepool tpu-1", "creating 3s");
  CHECK(err.str() ==
        // tpu-0 alone; then both, the cursor on the second line
        "nodepool tpu-0: creating 1s"
        "\r\033[Knodepool tpu-0: creating 1s\nnodepool tpu-1: creating 1s"
        // back up one line, clear below, both again
        "\r\033[1A\033[Jnodepool tpu-0: creating 2s\nnodepool tpu-1: creating 1s"
        // tpu-0's outcome is kept above the one still under way
        "\r\033[1A\033[Jnodepool tpu-0: created\nnodepool tpu-1: creating 1s"
        "\r\033[Knodepool tpu-1: creating 3s");
}

TEST_CASE("without a terminal, parallel tasks are one whole line per change") {
  std::ostringstream err;
  core::Redactor redactor;
  TerminalReporter reporter(err, /*is_tty=*/false, /*width=*/20, false, false, redactor);
  reporter.Progress("nodepool tpu-0", "creating RUNNING PROVISIONING");
  reporter.Progress("nodepool tpu-1", "creating");
  reporter.Done("nodepool tpu-0", "created");
  CHECK(err.str() ==
        "nodepool tpu-0: creating RUNNING PROVISIONING\nnodepool tpu-1: creating\nnodepool tpu-0: created\n");
}

TEST_CASE("on a terminal a live line is cut to its width and a message wraps at spaces") {
  std::ostringstream err;
  core::Redactor redactor;
  TerminalReporter reporter(err, /*is_tty=*/true, /*width=*/20, false, false, redactor);
  reporter.Progress("nodepool tpu-0", "creating 12s");
  reporter.Info("the cluster is busy with another operation");
  CHECK(err.str() ==
        "nodepool tpu-0: cre…"
        "\r\033[Kthe cluster is busy\nwith another\noperation\nnodepool tpu-0: cre…");
}

}  // namespace
}  // namespace tputrain::cli
