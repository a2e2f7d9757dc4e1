#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tputrain::core {

// The one redactor in front of every sink (--verbose/--log-http, --dry-run, error text). It
// replaces credentials with "REDACTED" wherever they appear in free text:
// - an "Authorization:" header line's value, and any "Bearer <token>";
// - Google OAuth2 access tokens ("ya29.…") anywhere;
// - the JSON string fields access_token, refresh_token, id_token, client_secret, private_key,
//   private_key_id, token, password (kSecretFields), as "NAME": "VALUE" and as the value of a
//   {"key": "NAME", "value": "VALUE"} item (Compute's metadata items);
// - the form fields assertion=, refresh_token=, client_secret=, access_token=; PEM private key blocks;
// - Hugging Face tokens ("hf_" and 30 or more letters and digits) anywhere.
// Everything else is returned unchanged, so a request body that carries no secret prints exactly.
std::string Redact(std::string_view text);

inline constexpr std::string_view kRedacted = "REDACTED";

// The JSON fields whose string values are secrets wherever they appear.
inline constexpr std::string_view kSecretFields[] = {"access_token", "refresh_token",  "id_token", "client_secret",
                                                     "private_key",  "private_key_id", "token",    "password"};

// Every value of a field named in `names` (or in kSecretFields) that `json_text` holds, decoded:
// "NAME": "VALUE" members and {"key": "NAME", "value": "VALUE"} items, at any depth. The text
// need not be valid JSON (a log line, a body cut short): what is found is returned.
std::vector<std::string> SecretFieldValues(std::string_view json_text, const std::vector<std::string>& names = {});

// Redaction by value as well as by pattern. A server may echo a secret where no pattern can find
// it ("invalid_grant: bad refresh token 1//0g..." in an error_description, a token in a 403's
// message), so whatever holds a secret tells the process's one Redactor, and every sink prints
// through it: the secret's text, its form-encoded and its JSON-escaped spelling become REDACTED.
// Values shorter than kMinHeldLength are not held: replacing a 3-letter string everywhere would
// garble output, and no credential is that short. Thread-safe; owned by the composition root.
class Redactor {
 public:
  static constexpr size_t kMinHeldLength = 8;

  void Hold(std::string_view secret);  // also without surrounding whitespace (a file's last newline)
  // A JSON field whose value is a secret, besides kSecretFields (the Ray token's TPU metadata
  // key): redacted by name in everything printed, and found by HoldSecretsIn.
  void HoldField(std::string_view name);
  // Holds the value of every secret field (kSecretFields and HoldField's) and of every Kubernetes
  // Secret (data as sent and decoded, stringData) in `json_text`, a body or file just read: once
  // read, a secret is redacted wherever it appears later, with or without its name or encoding.
  void HoldSecretsIn(std::string_view json_text);
  // Every held value, then held fields by name, then the patterns of Redact().
  std::string operator()(std::string_view text) const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> held_;    // the spellings to replace, longest first
  std::vector<std::string> fields_;  // HoldField's names
};

}  // namespace tputrain::core
