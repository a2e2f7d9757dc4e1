#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::gcp::auth {

inline constexpr std::string_view kCloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform";
inline constexpr std::string_view kGoogleTokenUri = "https://oauth2.googleapis.com/token";

// RS256 (RSASSA-PKCS1-v1_5 over SHA-256) of `data` with a PEM (PKCS#8 or PKCS#1) RSA key.
core::Result<std::string> SignRs256(std::string_view private_key_pem, std::string_view data);

struct JwtClaims {
  std::string issuer;  // the service account's client_email
  std::string scope;
  std::string audience;
  std::chrono::system_clock::time_point issued_at;
  std::chrono::seconds lifetime{3600};
};

// header.claims.signature, header {"alg":"RS256","typ":"JWT","kid":key_id}: the assertion of the
// jwt-bearer grant (RFC 7523) that Google's token endpoint exchanges for an access token.
core::Result<std::string> MakeSignedJwt(const JwtClaims& claims, std::string_view private_key_pem,
                                        std::string_view key_id);

}  // namespace tputrain::gcp::auth
