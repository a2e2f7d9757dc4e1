#pragma once

#include <map>
#include <optional>
#include <string>

namespace tputrain::core {

// A snapshot of the environment, taken once in main and passed down, so that no module reads
// getenv behind the caller's back and tests can set any variable without touching the process.
class Env {
 public:
  Env() = default;
  explicit Env(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {}
  static Env FromProcess();

  // Unset and empty are the same: that is how gcloud and the Ray CLI read their variables.
  std::optional<std::string> Get(const std::string& name) const;
  std::string GetOr(const std::string& name, std::string fallback) const;
  void Set(const std::string& name, std::string value) { vars_[name] = std::move(value); }
  void Unset(const std::string& name) { vars_.erase(name); }
  const std::map<std::string, std::string>& vars() const { return vars_; }

  // $HOME, falling back to the password database as curl and gcloud do.
  std::string Home() const;

 private:
  std::map<std::string, std::string> vars_;
};

}  // namespace tputrain::core
