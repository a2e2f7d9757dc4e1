#pragma once

#include <string>
#include <string_view>

// Text as it reaches a terminal.
namespace tputrain::core {

// `text` safe to print on a terminal: control characters (C0 but for tab and, when kept, '\n';
// DEL; C1) and bytes that are not UTF-8 become escapes ("\n", "\r", "\x1b", "\x9b"), and so do
// the bidirectional formatting controls ("\u202e"); the rest is printed as is. A server's, a
// model's or a user's text cannot then move the cursor, clear the screen, set the window title,
// reorder what is shown, or (Newlines::kEscape) make one line look like two.
enum class Newlines { kEscape, kKeep };
std::string PrintableText(std::string_view text, Newlines newlines = Newlines::kEscape);

// A count with its noun in the right number: "1 host", "4 hosts", "0 hosts"; `many` where the
// plural is not `one` + "s" ("1 policy", "2 policies").
std::string Counted(long long count, std::string_view one, std::string_view many = {});

}  // namespace tputrain::core
