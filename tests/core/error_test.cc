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

TEST_CASE("google.rpc.Code numbers map to kinds and back, one table for names and numbers") {
  using tputrain::core::KindFromRpcCode;
  using tputrain::core::RpcCode;
  CHECK(KindFromRpcCode(1) == ErrorKind::kCancelled);
  CHECK(KindFromRpcCode(5) == ErrorKind::kNotFound);
  CHECK(KindFromRpcCode(8) == ErrorKind::kResourceExhausted);
  CHECK(KindFromRpcCode(9) == ErrorKind::kFailedPrecondition);
  CHECK(KindFromRpcCode(14) == ErrorKind::kUnavailable);
  CHECK(KindFromRpcCode(16) == ErrorKind::kUnauthenticated);
  // UNKNOWN, OUT_OF_RANGE, UNIMPLEMENTED, DATA_LOSS and numbers not (yet) in code.proto.
  for (int code : {2, 11, 12, 15, 0, 99}) CHECK(KindFromRpcCode(code) == ErrorKind::kInternal);
  for (auto kind :
       {ErrorKind::kInvalidArgument, ErrorKind::kNotFound, ErrorKind::kAlreadyExists, ErrorKind::kPermissionDenied,
        ErrorKind::kUnauthenticated, ErrorKind::kResourceExhausted, ErrorKind::kFailedPrecondition, ErrorKind::kAborted,
        ErrorKind::kUnavailable, ErrorKind::kDeadlineExceeded, ErrorKind::kCancelled, ErrorKind::kInternal}) {
    CHECK(KindFromRpcCode(RpcCode(kind)) == kind);
  }
  CHECK(RpcCode(ErrorKind::kInternal) == 13);
  CHECK(tputrain::core::KindFromStatusName("OUT_OF_RANGE") == ErrorKind::kInvalidArgument);
}

TEST_CASE("a cancelled error is an interruption: exit 130") {
  auto error = Error::Cancelled();
  CHECK(error.kind == ErrorKind::kCancelled);
  CHECK(error.message == "interrupted");
  CHECK(Error::Cancelled("interrupted while waiting").message == "interrupted while waiting");
  CHECK(tputrain::core::ExitCodeFor(error) == 130);
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
