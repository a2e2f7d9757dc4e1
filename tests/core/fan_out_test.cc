#include "tputrain/core/fan_out.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace tputrain::core {
namespace {

TEST_CASE("FanOut returns each item's result in the items' order") {
  const std::vector<int> items = {3, 1, 2};
  auto squares = FanOut(items, [](int n) { return n * n; });
  CHECK(squares == std::vector<int>{9, 1, 4});
  CHECK(FanOut(std::vector<int>{}, [](int n) { return n; }).empty());
}

TEST_CASE("FanOut runs every item at once: each waits for all to have started") {
  constexpr int kItems = 4;
  std::mutex mutex;
  std::condition_variable all_started;
  int started = 0;
  auto results = FanOut(std::vector<int>{0, 1, 2, 3}, [&](int n) {
    std::unique_lock lock(mutex);
    ++started;
    all_started.notify_all();
    // Sequential runs would wait here forever; the timeout only turns that into a failure.
    return all_started.wait_for(lock, std::chrono::seconds(30), [&] { return started == kItems; }) ? n : -1;
  });
  CHECK(results == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("FanOut in order runs one after another, first to last, on the caller's thread") {
  std::vector<std::string> order;
  const auto caller = std::this_thread::get_id();
  bool same_thread = true;
  FanOut(
      std::vector<std::string>{"a", "b", "c"},
      [&](const std::string& item) {
        order.push_back(item);
        same_thread = same_thread && std::this_thread::get_id() == caller;
        return 0;
      },
      /*in_order=*/true);
  CHECK(order == std::vector<std::string>{"a", "b", "c"});
  CHECK(same_thread);
}

}  // namespace
}  // namespace tputrain::core
