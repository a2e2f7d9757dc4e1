#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tputrain::core {

// The candidates nearest `word`, for "did you mean ...?": by edit distance (a swap of two
// neighbours counting one, as the commonest typo), a word that starts a candidate counting as
// near as one typo; within a third of the word's letters (two for short words); at most three,
// all of the best distance, in the candidates' order. None when nothing is close.
std::vector<std::string> Nearest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace tputrain::core
