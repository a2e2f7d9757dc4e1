#include "tputrain/gcp/auth/auth_transport.h"

namespace tputrain::gcp::auth {

core::Result<http::Headers> TokenCredential::AuthHeaders() {
  auto token = tokens_.Token();
  if (!token) return core::Fail(token.error());
  return http::Headers{{"Authorization", "Bearer " + *token}};
}

}  // namespace tputrain::gcp::auth
