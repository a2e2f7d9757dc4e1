#pragma once

#include <string>
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::core {

// RFC 4648: the standard alphabet (§4, "+/": kubeconfig *-data, GKE's CA certificate, the
// emulator's etags and object bodies, WebSocket keys) and the URL- and filename-safe one (§5,
// "-_": JWTs).
enum class Base64Alphabet { kStandard, kUrlSafe };

// Whether the encoder pads to a multiple of four with '='. JWTs (RFC 7515 §2) are unpadded.
enum class Base64Padding { kPadded, kUnpadded };

std::string EncodeBase64(std::string_view bytes, Base64Alphabet alphabet = Base64Alphabet::kStandard,
                         Base64Padding padding = Base64Padding::kPadded);

// Decodes `text` in `alphabet`. Padding is optional; line breaks and spaces are skipped (PEM and
// YAML fold long values). A character outside the alphabet, '=' before the end, more than two
// '=', or a length no encoder writes fails with kInvalidArgument, one line saying which; the
// caller prefixes the field it read.
Result<std::string> DecodeBase64(std::string_view text, Base64Alphabet alphabet = Base64Alphabet::kStandard);

}  // namespace tputrain::core
