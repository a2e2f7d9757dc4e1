#include "gcp/test_keys.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <stdexcept>

namespace tputrain::testing {
namespace {

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long length = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(length));
}

}  // namespace

TestKeyPair GenerateRsaKeyPair() {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(2048), EVP_PKEY_free);
  if (!key) throw std::runtime_error("EVP_RSA_gen failed");
  std::unique_ptr<BIO, decltype(&BIO_free)> private_bio(BIO_new(BIO_s_mem()), BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> public_bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(private_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  PEM_write_bio_PUBKEY(public_bio.get(), key.get());
  return {BioText(private_bio.get()), BioText(public_bio.get())};
}

std::string Base64UrlDecode(std::string_view text) {
  std::string standard(text);
  for (char& c : standard) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (standard.size() % 4 != 0) standard += '=';
  std::string out(standard.size() / 4 * 3, '\0');
  int length =
      EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(standard.data()), static_cast<int>(standard.size()));
  if (length < 0) return "";
  size_t padding = standard.size() - standard.find_last_not_of('=') - 1;
  out.resize(static_cast<size_t>(length) - padding);
  return out;
}

bool VerifyRs256(const std::string& jwt, const std::string& public_pem) {
  auto last_dot = jwt.rfind('.');
  if (last_dot == std::string::npos) return false;
  std::string signing_input = jwt.substr(0, last_dot);
  std::string signature = Base64UrlDecode(jwt.substr(last_dot + 1));
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size())),
                                                BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!key || EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size()) == 1;
}

std::string JwtClaimsJson(const std::string& jwt) {
  auto first = jwt.find('.');
  auto second = jwt.find('.', first + 1);
  return Base64UrlDecode(jwt.substr(first + 1, second - first - 1));
}

std::string FormField(const std::string& body, const std::string& name) {
  std::string key = name + "=";
  size_t at = 0;
  while ((at = body.find(key, at)) != std::string::npos) {
    if (at == 0 || body[at - 1] == '&') break;
    at += key.size();
  }
  if (at == std::string::npos) return "";
  size_t begin = at + key.size();
  size_t end = body.find('&', begin);
  std::string raw = body.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size()) {
      out += static_cast<char>(std::stoi(raw.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += raw[i] == '+' ? ' ' : raw[i];
    }
  }
  return out;
}

}  // namespace tputrain::testing
