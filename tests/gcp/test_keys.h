#pragma once

#include <string>
#include <string_view>

namespace tputrain::testing {

// An RSA key pair generated per test run, so no private key is ever committed.
struct TestKeyPair {
  std::string private_pem;  // PKCS#8, as Google's key files carry it
  std::string public_pem;
};
TestKeyPair GenerateRsaKeyPair();

std::string Base64UrlDecode(std::string_view text);

// True when `jwt` is header.claims.signature with a valid RS256 signature by `public_pem`.
bool VerifyRs256(const std::string& jwt, const std::string& public_pem);

// The decoded claims (middle part) of a JWT, as JSON text.
std::string JwtClaimsJson(const std::string& jwt);

// form-urlencoded field value, percent-decoded.
std::string FormField(const std::string& body, const std::string& name);

}  // namespace tputrain::testing
