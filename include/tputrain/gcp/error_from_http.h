#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "tputrain/core/error.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp {

// Reasons set on a 429 so that callers can tell the two apart (when the server gave no
// ErrorInfo reason of its own): the server said when to retry, or it did not (quota).
inline constexpr std::string_view kReasonRateLimited = "RATE_LIMITED";
inline constexpr std::string_view kReasonQuotaExceeded = "QUOTA_EXCEEDED";
// An API not enabled in the project; ErrorInfo.metadata["service"] names it.
inline constexpr std::string_view kReasonServiceDisabled = "SERVICE_DISABLED";

// A non-2xx Google API reply as an Error. Reads the AIP-193 shape
// {"error":{"code","message","status","details":[...]}} and Cloud Storage's legacy shape
// {"error":{"code","message","errors":[{"domain","reason","message"}]}}:
// kind from "status" (else from the HTTP status), reason from the ErrorInfo detail (else the
// legacy errors[0].reason), the server's message verbatim, http_status set, where = `where`.
// A body that is not Google's error JSON still yields an Error, kind from the HTTP status.
core::Error ErrorFromHttp(const http::Response& response, std::string_view where);

// How long the server asked us to wait: the RetryInfo detail's retryDelay ("30s", "1.5s"), else
// a Retry-After header in seconds. For http::RetryingTransport's hint.
std::optional<std::chrono::milliseconds> RetryDelayOf(const http::Response& response);

// The protobuf JSON wire form of google.protobuf.Duration ("30s", "1.500s": seconds, then 's'),
// as RetryInfo.retryDelay carries it. Not a flag grammar: flags use core::ParseDuration.
std::optional<std::chrono::milliseconds> ParseProtobufDuration(std::string_view text);

}  // namespace tputrain::gcp
