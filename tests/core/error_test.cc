#include <catch2/catch.hpp>

#include "tputrain/core/error.h"

using tputrain::core::Error;
using tputrain::core::ErrorKind;

TEST_CASE("status names round-trip through the google.rpc vocabulary") {
  for (auto kind :
       {ErrorKind::kInvalidArgument, ErrorKind::kNotFound, ErrorKind::kAlreadyExists, ErrorKind::kResourceExhausted,
        ErrorKind::kFailedPrecondition, ErrorKind::kAborted, ErrorKind::kUnavailable, ErrorKind::kCancelled}) {
    CHECK(tputrain::core::KindFromStatusName(tputrain::core::KindName(kind)) == kind);
  }
  CHECK(tputrain::core::KindFromStatusName("SOMETHING_NEW") == ErrorKind::kInternal);
}

TEST_CASE("HTTP statuses map as google.rpc.Code documents") {
  CHECK(tputrain::core::KindFromHttpStatus(404) == ErrorKind::kNotFound);
  CHECK(tputrain::core::KindFromHttpStatus(409) == ErrorKind::kAborted);
  CHECK(tputrain::core::KindFromHttpStatus(429) == ErrorKind::kResourceExhausted);
  CHECK(tputrain::core::KindFromHttpStatus(503) == ErrorKind::kUnavailable);
  CHECK(tputrain::core::KindFromHttpStatus(500) == ErrorKind::kInternal);
}

TEST_CASE("exit codes tell usage, credentials, interruption and failure apart") {
  CHECK(tputrain::core::ExitCodeFor(Error::Usage("--model: unknown")) == 2);
  Error server_400 = Error::Make(ErrorKind::kInvalidArgument, "bad field");
  server_400.http_status = 400;
  CHECK(tputrain::core::ExitCodeFor(server_400) == 1);
  CHECK(tputrain::core::ExitCodeFor(Error::NoCredentials("no ADC")) == 4);
  CHECK(tputrain::core::ExitCodeFor(Error::Make(ErrorKind::kCancelled, "interrupted")) == 130);
  CHECK(tputrain::core::ExitCodeFor(Error::Make(ErrorKind::kResourceExhausted, "stockout")) == 1);
}
