#pragma once

#include <string_view>

#include "tputrain/core/result.h"
#include "tputrain/serving/engine.h"

// What a user types for vLLM's OpenAI-compatible server, checked before any request: a chat
// message as ROLE:TEXT, a served model's name, a text to send.
namespace tputrain::serving {

// "user:What is a TPU?" → {user, "What is a TPU?"}. The roles vLLM's chat templates take:
// system, developer, user, assistant. A usage error naming `flag` otherwise.
core::Result<ChatMessage> ParseChatMessage(std::string_view flag, std::string_view value);

// A served model's name (a Hugging Face id, a path, --served-model-name's value): 1 to 512 bytes
// of UTF-8 with no control characters.
core::Status CheckServedModelName(std::string_view flag, std::string_view name);

// A prompt or a message: well-formed UTF-8 (a JSON string cannot carry anything else), up to
// 16 MiB. Newlines are part of a prompt.
core::Status CheckPromptText(std::string_view flag, std::string_view text);

}  // namespace tputrain::serving
