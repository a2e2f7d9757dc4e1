#pragma once

#include <string>
#include <string_view>

namespace tputrain::core {

// The one redactor in front of every sink (--verbose/--log-http, --dry-run, error text). It
// replaces credentials with "REDACTED" wherever they appear in free text:
// - an "Authorization:" header line's value, and any "Bearer <token>";
// - Google OAuth2 access tokens ("ya29.…") anywhere;
// - the JSON string fields access_token, refresh_token, id_token, client_secret, private_key,
//   private_key_id;
// - the form fields assertion=, refresh_token=, client_secret=, access_token=;
// - PEM private key blocks.
// Everything else is returned unchanged, so a request body that carries no secret prints exactly.
std::string Redact(std::string_view text);

inline constexpr std::string_view kRedacted = "REDACTED";

}  // namespace tputrain::core
