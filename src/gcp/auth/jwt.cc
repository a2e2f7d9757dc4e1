#include "auth/jwt.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdint>
#include <memory>

#include <nlohmann/json.hpp>

#include "tputrain/core/base64.h"

namespace tputrain::gcp::auth {
namespace {

// JWS segments are base64url without padding (RFC 7515 §2).
std::string Base64UrlEncode(std::string_view bytes) {
  return core::EncodeBase64(bytes, core::Base64Alphabet::kUrlSafe, core::Base64Padding::kUnpadded);
}

}  // namespace

core::Result<std::string> SignRs256(std::string_view private_key_pem, std::string_view data) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
  if (!key) return core::Fail(core::Error::NoCredentials("private_key is not a PEM private key"));
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    return core::Fail(core::Error::NoCredentials("private_key is not an RSA key (RS256 needs RSA)"));
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t length = 0;
  if (!context || EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(context.get(), nullptr, &length, reinterpret_cast<const unsigned char*>(data.data()),
                     data.size()) != 1) {
    return core::Fail(core::Error::Internal("RS256 signing failed"));
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    return core::Fail(core::Error::Internal("RS256 signing failed"));
  }
  signature.resize(length);
  return signature;
}

core::Result<std::string> MakeSignedJwt(const JwtClaims& claims, std::string_view private_key_pem,
                                        std::string_view key_id) {
  nlohmann::json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  if (!key_id.empty()) header["kid"] = std::string(key_id);
  auto iat = std::chrono::duration_cast<std::chrono::seconds>(claims.issued_at.time_since_epoch()).count();
  nlohmann::json body = {{"iss", claims.issuer},
                         {"scope", claims.scope},
                         {"aud", claims.audience},
                         {"iat", iat},
                         {"exp", iat + claims.lifetime.count()}};
  std::string signing_input = Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(body.dump());
  auto signature = SignRs256(private_key_pem, signing_input);
  if (!signature) return core::Fail(signature.error());
  return signing_input + "." + Base64UrlEncode(*signature);
}

}  // namespace tputrain::gcp::auth
