#pragma once

#include <string>
#include <string_view>

namespace tputrain::core {

// How library code tells a person what is happening, without knowing whether stderr is a
// terminal. The CLI implements it (a live line per task on a TTY, plain lines otherwise,
// nothing with --quiet); tests record it.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void Info(std::string_view message) = 0;
  virtual void Warn(std::string_view message) = 0;
  // A long task's current state; `task` keys the live line it updates.
  virtual void Progress(std::string_view task, std::string_view state) = 0;
  // The task's last word: its live line is finished and kept.
  virtual void Done(std::string_view task, std::string_view outcome) = 0;
  // Extra detail shown only with --verbose.
  virtual void Debug(std::string_view message) = 0;
};

class NullReporter final : public Reporter {
 public:
  void Info(std::string_view) override {}
  void Warn(std::string_view) override {}
  void Progress(std::string_view, std::string_view) override {}
  void Done(std::string_view, std::string_view) override {}
  void Debug(std::string_view) override {}
};

}  // namespace tputrain::core
