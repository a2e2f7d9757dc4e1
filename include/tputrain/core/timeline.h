#pragma once

// Where one command's time goes: named spans (loading libcurl, resolving the configuration,
// credentials, the ledger, each request's connect, TLS and first byte), kept when the user asks
// (TPUTRAIN_PHASES=1) and printed at exit, so that a bench can show each phase of a command
// that sends requests. Off, it records nothing: every call site takes a null Timeline.

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tputrain::core {

class Timeline {
 public:
  using Clock = std::chrono::steady_clock;

  // The origin is now: the spans are printed in milliseconds from it, and the line `origin`
  // gives its wall time (microseconds since the epoch), so that a bench that noted when it
  // started the process can add what came before main.
  Timeline();

  // Thread-safe: a library may load on a thread while the command resolves its flags.
  void Add(std::string name, Clock::time_point begin, Clock::time_point end);

  // Measures from construction to destruction (or to End()); nothing when `timeline` is null.
  class Span {
   public:
    Span(Timeline* timeline, std::string name);
    ~Span() { End(); }
    Span(const Span&) = delete;
    Span& operator=(const Span&) = delete;
    void End();

   private:
    Timeline* timeline_;
    std::string name_;
    Clock::time_point begin_;
  };

  // One line per span in the order they began: `phase NAME BEGIN_MS END_MS THREAD`, THREAD 0
  // for the thread that built the Timeline and 1, 2, ... for others in the order they appeared.
  void Print(std::ostream& out) const;

 private:
  struct Entry {
    std::string name;
    Clock::time_point begin;
    Clock::time_point end;
    int thread;
  };
  Clock::time_point origin_;
  int64_t origin_wall_us_;
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::vector<std::thread::id> threads_;
};

}  // namespace tputrain::core
