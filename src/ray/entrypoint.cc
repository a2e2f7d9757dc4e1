#include "tputrain/ray/entrypoint.h"

namespace tputrain::ray {

std::string ShellJoin(const std::vector<std::string>& argv) {
  std::string joined;
  for (const auto& arg : argv) {
    if (!joined.empty()) joined += ' ';
    bool safe = !arg.empty() && arg.find_first_not_of(
                                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                    "0123456789@%+=:,./_-") == std::string::npos;
    if (safe) {
      joined += arg;
      continue;
    }
    joined += '\'';
    for (char c : arg) joined += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    joined += '\'';
  }
  return joined;
}

}  // namespace tputrain::ray
