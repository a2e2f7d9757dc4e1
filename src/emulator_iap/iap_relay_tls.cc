#include "iap_relay_tls.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

namespace tputrain::emulator {
namespace {

struct KeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct CertificateDeleter {
  void operator()(X509* certificate) const { X509_free(certificate); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyDeleter>;
using CertificatePtr = std::unique_ptr<X509, CertificateDeleter>;

core::Error OpenSslError(const std::string& what) {
  char text[256] = "";
  ERR_error_string_n(ERR_get_error(), text, sizeof(text));
  return core::Error::Internal("IAP relay TLS: " + what + ": " + text);
}

bool AddExtension(X509* certificate, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  if (extension == nullptr) return false;
  bool added = X509_add_ext(certificate, extension, -1) == 1;
  X509_EXTENSION_free(extension);
  return added;
}

// A certificate for `key` named `common_name`, valid from an hour ago (clocks differ) for 30 days;
// the issuer's name is set by the caller's signing step.
CertificatePtr NewCertificate(EVP_PKEY* key, const char* common_name) {
  CertificatePtr certificate(X509_new());
  unsigned char serial[16];
  RAND_bytes(serial, sizeof(serial));
  serial[0] &= 0x7F;  // positive
  BIGNUM* number = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate.get()));
  BN_free(number);
  X509_set_version(certificate.get(), 2);
  X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(certificate.get()), 30L * 24 * 3600);
  X509_set_pubkey(certificate.get(), key);
  X509_NAME* name = X509_get_subject_name(certificate.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("tputrain emulator"), -1,
                             -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(common_name), -1, -1, 0);
  return certificate;
}

std::string Pem(X509* certificate) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, certificate);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  return pem;
}

}  // namespace

core::Result<RelayTls> MakeRelayTls() {
  KeyPtr ca_key(EVP_EC_gen("P-256"));
  KeyPtr server_key(EVP_EC_gen("P-256"));
  if (!ca_key || !server_key) return core::Fail(OpenSslError("generating keys"));

  CertificatePtr ca = NewCertificate(ca_key.get(), "tputrain emulator IAP relay CA");
  X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get()));
  bool ca_ok = AddExtension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0") &&
               AddExtension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign") &&
               AddExtension(ca.get(), ca.get(), NID_subject_key_identifier, "hash") &&
               X509_sign(ca.get(), ca_key.get(), EVP_sha256()) > 0;
  if (!ca_ok) return core::Fail(OpenSslError("making the CA"));

  CertificatePtr server = NewCertificate(server_key.get(), "127.0.0.1");
  X509_set_issuer_name(server.get(), X509_get_subject_name(ca.get()));
  // Strict verifiers (Python 3.13's default) want the key identifiers and a SAN.
  bool server_ok = AddExtension(server.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE") &&
                   AddExtension(server.get(), ca.get(), NID_key_usage, "critical,digitalSignature") &&
                   AddExtension(server.get(), ca.get(), NID_ext_key_usage, "serverAuth") &&
                   AddExtension(server.get(), ca.get(), NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost") &&
                   AddExtension(server.get(), ca.get(), NID_subject_key_identifier, "hash") &&
                   AddExtension(server.get(), ca.get(), NID_authority_key_identifier, "keyid:always") &&
                   X509_sign(server.get(), ca_key.get(), EVP_sha256()) > 0;
  if (!server_ok) return core::Fail(OpenSslError("signing the server certificate"));

  SslContextPtr context(SSL_CTX_new(TLS_server_method()));
  if (!context || SSL_CTX_use_certificate(context.get(), server.get()) != 1 ||
      SSL_CTX_use_PrivateKey(context.get(), server_key.get()) != 1) {
    return core::Fail(OpenSslError("the server context"));
  }
  SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
  // Writes go out from a buffer that moves as it is consumed, and may be partial.
  SSL_CTX_set_mode(context.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return RelayTls{Pem(ca.get()), std::move(context)};
}

}  // namespace tputrain::emulator
