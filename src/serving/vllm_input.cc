#include "tputrain/core/utf8.h"
#include "tputrain/serving/vllm.h"

namespace tputrain::serving {

core::Result<ChatMessage> ParseChatMessage(std::string_view flag, std::string_view value) {
  const auto colon = value.find(':');
  const std::string_view role = value.substr(0, colon == std::string_view::npos ? 0 : colon);
  if (colon == std::string_view::npos ||
      (role != "system" && role != "developer" && role != "user" && role != "assistant")) {
    return core::Fail(
        core::Error::Usage(std::string(flag) + ": expected ROLE:TEXT with ROLE system, developer, user or assistant"));
  }
  const std::string_view text = value.substr(colon + 1);
  if (text.empty())
    return core::Fail(core::Error::Usage(std::string(flag) + ": the " + std::string(role) + " message is empty"));
  if (auto valid = CheckPromptText(flag, text); !valid) return core::Fail(valid.error());
  return ChatMessage{std::string(role), std::string(text)};
}

core::Status CheckServedModelName(std::string_view flag, std::string_view name) {
  constexpr std::size_t kLongest = 512;
  bool controls = false;
  for (char c : name) controls = controls || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  if (name.empty() || name.size() > kLongest || controls || !core::IsValidUtf8(name)) {
    return core::Fail(core::Error::Usage(std::string(flag) +
                                         ": expected a served model's name (1 to 512 bytes of UTF-8, no control "
                                         "characters), as GET /v1/models lists it"));
  }
  return {};
}

core::Status CheckPromptText(std::string_view flag, std::string_view text) {
  constexpr std::size_t kLongest = 16 << 20;
  if (text.size() > kLongest) return core::Fail(core::Error::Usage(std::string(flag) + ": longer than 16 MiB"));
  if (!core::IsValidUtf8(text)) return core::Fail(core::Error::Usage(std::string(flag) + ": not valid UTF-8"));
  return {};
}

}  // namespace tputrain::serving
