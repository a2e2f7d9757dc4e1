#pragma once

#include <future>
#include <iterator>
#include <type_traits>
#include <vector>

namespace tputrain::core {

// Runs `work(item)` for every item at once, one thread each, and returns what each returned, in
// the items' order once all have ended; with `in_order` (a --dry-run, which lists its requests
// as they would be sent) one after another instead, first to last. The one way independent
// creates, deletes and reads are sent in parallel: the slowest decides how long they take.
template <typename Items, typename Work>
auto FanOut(const Items& items, Work work, bool in_order = false) {
  using Item = decltype(*std::begin(items));
  using Result = std::invoke_result_t<Work&, Item>;
  std::vector<std::future<Result>> running;
  const auto policy = in_order ? std::launch::deferred : std::launch::async;
  for (const auto& item : items) running.push_back(std::async(policy, [&work, &item] { return work(item); }));
  std::vector<Result> results;
  results.reserve(running.size());
  for (auto& future : running) results.push_back(future.get());
  return results;
}

}  // namespace tputrain::core
