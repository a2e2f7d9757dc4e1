#include "tputrain/core/nearest.h"

#include <algorithm>
#include <limits>

namespace tputrain::core {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbours each cost one ("--tpu-typ" is one from "--tpu-type", "craete" one from "create").
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> Nearest(std::string_view word, const std::vector<std::string>& candidates) {
  // Close enough to be the word meant: a third of its letters wrong at most (two for short ones).
  const std::size_t bare = word.size() - std::min(word.size(), word.find_first_not_of('-'));
  const std::size_t limit = std::max<std::size_t>(2, bare / 3);
  std::size_t best = std::numeric_limits<std::size_t>::max();
  std::vector<std::string> nearest;
  for (const auto& candidate : candidates) {
    if (candidate == word) continue;
    std::size_t distance = EditDistance(word, candidate);
    // "--accel" for --accelerator: a prefix of one flag is nearer than any typo.
    if (word.size() > 3 && candidate.rfind(word, 0) == 0) distance = 1;
    if (distance > limit || distance > best) continue;
    if (distance < best) nearest.clear();
    best = distance;
    if (std::find(nearest.begin(), nearest.end(), candidate) == nearest.end()) nearest.push_back(candidate);
  }
  if (nearest.size() > 3) nearest.resize(3);
  return nearest;
}

}  // namespace tputrain::core
