#include "tputrain/state/ledger.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tputrain/core/file.h"
#include "tputrain/core/json.h"
#include "tputrain/core/timestamp.h"

namespace tputrain::state {
namespace {

namespace fs = std::filesystem;

core::Error StateError(const std::string& path, const std::string& what) {
  auto error = core::Error::Internal(path + ": " + what);
  error.where = "ledger";
  return error;
}

// A run's ledger lists what it made: hundreds of entries of a few hundred bytes at most.
constexpr size_t kMaxLedgerBytes = 64 * core::kMiB;

// A missing file is kNotFound (a run with nothing recorded yet); anything else is a state error.
core::Result<std::string> ReadWholeFile(const std::string& path) {
  auto text = core::ReadFile(path, "", kMaxLedgerBytes);
  if (text) return text;
  if (core::IsFileNotFound(text.error())) {
    return core::Fail(core::Error::Make(core::ErrorKind::kNotFound, path + ": no such file"));
  }
  auto error = core::Error::Internal(text.error().message);
  error.where = "ledger";
  return core::Fail(error);
}

// Writes to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the
// directory: a reader sees the old content or the new, never a torn file.
core::Status WriteAtomically(const std::string& path, const std::string& content) {
  std::string temp = path + ".tmp." + std::to_string(getpid());
  int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return core::Fail(StateError(temp, std::strerror(errno)));
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      close(fd);
      unlink(temp.c_str());
      return core::Fail(StateError(temp, std::strerror(saved)));
    }
    written += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(temp.c_str());
    return core::Fail(StateError(temp, "cannot sync to disk"));
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    int saved = errno;
    unlink(temp.c_str());
    return core::Fail(StateError(path, std::strerror(saved)));
  }
  int dir_fd = open(fs::path(path).parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
  return {};
}

// An exclusive flock held for the life of the object.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ >= 0) {
      while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

std::string NewRunId(std::chrono::system_clock::time_point now) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &utc);
  std::random_device random;
  char suffix[8];
  std::snprintf(suffix, sizeof(suffix), "%04x", static_cast<unsigned>(random() & 0xFFFF));
  return std::string("tr-") + stamp + "-" + suffix;  // valid as a GCP label value: lowercase, digits, '-'
}

}  // namespace

std::string_view EntryStateName(EntryState state) {
  switch (state) {
    case EntryState::kCreating:
      return "creating";
    case EntryState::kCreated:
      return "created";
    case EntryState::kDeleting:
      return "deleting";
    case EntryState::kDeleted:
      return "deleted";
    case EntryState::kFailed:
      return "failed";
    case EntryState::kPreempted:
      return "preempted";
  }
  return "creating";
}

std::string LedgerEntry::KindName() const {
  return kind == ResourceKind::kUnknown ? unknown_kind : std::string(state::KindName(kind));
}

LedgerEntry* Ledger::Find(ResourceKind kind, const std::string& name) {
  if (kind == ResourceKind::kUnknown) return nullptr;  // unknown kinds are carried, never looked up
  for (auto& entry : entries) {
    if (entry.kind == kind && entry.name == name) return &entry;
  }
  return nullptr;
}

std::vector<const LedgerEntry*> Ledger::Live() const {
  std::vector<const LedgerEntry*> live;
  for (const auto& entry : entries) {
    if (entry.state != EntryState::kDeleted) live.push_back(&entry);
  }
  return live;
}

LedgerStore::LedgerStore(std::string dir, core::Clock& clock) : dir_(std::move(dir)), clock_(clock) {}

std::string LedgerStore::DefaultDir(const core::Env& env) {
  if (auto state_home = env.Get("XDG_STATE_HOME")) return *state_home + "/tputrain";
  return env.Home() + "/.local/state/tputrain";
}

core::Status ValidateNewRunId(std::string_view source, const std::string& run_id) {
  bool ok = !run_id.empty() && run_id.size() <= kMaxRunIdLength &&
            std::all_of(run_id.begin(), run_id.end(), [](unsigned char c) {
              return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
            });
  if (!ok) {
    return core::Fail(core::Error::Usage(std::string(source) + ": invalid run id '" + run_id +
                                         "': it becomes the tputrain-run label, so up to 63 lowercase letters, "
                                         "digits, '-' or '_'"));
  }
  return {};
}

core::Status ValidateRunId(const std::string& run_id) {
  bool ok = !run_id.empty() && run_id.size() <= 64 && run_id.front() != '.' &&
            std::all_of(run_id.begin(), run_id.end(),
                        [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_' || c == '.'; });
  if (!ok) {
    return core::Fail(core::Error::Usage("--run: invalid run id '" + run_id +
                                         "': expected up to 64 letters, digits, '-', '_' or '.'"));
  }
  return {};
}

std::string LedgerStore::PathOf(const std::string& run_id) const { return dir_ + "/" + run_id + ".json"; }

std::string LedgerStore::Timestamp() const {
  std::time_t seconds = std::chrono::system_clock::to_time_t(clock_.WallNow());
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

core::Result<std::string> LedgerStore::CurrentRun() const {
  auto text = ReadWholeFile(dir_ + "/current");
  if (!text) return std::string();
  std::string run_id = *text;
  while (!run_id.empty() && std::isspace(static_cast<unsigned char>(run_id.back()))) run_id.pop_back();
  return run_id;
}

core::Status LedgerStore::ClearCurrentRun(const std::string& run_id) {
  std::lock_guard guard(mutex_);
  std::error_code ec;
  FileLock lock(dir_ + "/.lock");
  auto current = CurrentRun();
  if (current && *current == run_id) fs::remove(dir_ + "/current", ec);
  return {};
}

core::Result<std::string> LedgerStore::ResolveRun(const std::string& explicit_id, const core::Env& env, bool create) {
  auto run_id = ResolveRunId(explicit_id, env, create);
  if (!run_id || !create || run_id->empty()) return run_id;
  // A command that records resolves its run before any call: a ledger it could not write to
  // would leave what it makes unrecorded, beyond every cleanup.
  if (auto recordable = CheckRecordable(*run_id); !recordable) return core::Fail(recordable.error());
  return run_id;
}

core::Status LedgerStore::CheckRecordable(const std::string& run_id) const {
  auto ledger = Load(run_id);
  if (ledger || ledger.error().kind == core::ErrorKind::kNotFound) return {};
  const std::string path = PathOf(run_id);
  std::string why = ledger.error().message;
  if (why.rfind(path + ": ", 0) == 0) why = why.substr(path.size() + 2);
  auto error = core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                 "run ledger " + path + " cannot be read (" + why +
                                     "), so nothing is created that it could not record: repair it, or move it "
                                     "aside (mv " +
                                     path + " " + path +
                                     ".broken; then `tputrain cleanup --scan` "
                                     "finds what it held by label) and run again");
  return core::Fail(error);
}

core::Result<std::string> LedgerStore::ResolveRunId(const std::string& explicit_id, const core::Env& env, bool create) {
  std::string run_id = explicit_id;
  const char* source = "--run";
  if (run_id.empty()) {
    run_id = env.GetOr("TPUTRAIN_RUN", "");
    source = "TPUTRAIN_RUN";
  }
  if (!run_id.empty()) {
    // A run that records gets a label-safe id; an older run of another spelling can still be
    // read and cleaned up.
    auto valid = create ? ValidateNewRunId(source, run_id) : ValidateRunId(run_id);
    if (!valid) return core::Fail(valid.error());
    return run_id;
  }
  std::lock_guard guard(mutex_);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return core::Fail(StateError(dir_, ec.message()));
  FileLock lock(dir_ + "/.lock");
  auto current = CurrentRun();
  if (current && !current->empty()) return *current;
  if (!create) return std::string();
  run_id = NewRunId(clock_.WallNow());
  if (auto written = WriteAtomically(dir_ + "/current", run_id + "\n"); !written) return core::Fail(written.error());
  return run_id;
}

core::Result<Ledger> LedgerStore::Load(const std::string& run_id) const {
  if (auto valid = ValidateRunId(run_id); !valid) return core::Fail(valid.error());
  auto text = ReadWholeFile(PathOf(run_id));
  if (!text && text.error().kind != core::ErrorKind::kNotFound) return core::Fail(text.error());
  if (!text) {
    auto error = core::Error::Make(core::ErrorKind::kNotFound, "no ledger for run '" + run_id + "' in " + dir_);
    return core::Fail(error);
  }
  auto json = core::ParseJson(*text, "", {.max_bytes = kMaxLedgerBytes});
  if (!json) return core::Fail(StateError(PathOf(run_id), json.error().message));
  auto ledger = LedgerFromJson(*json);
  if (!ledger) {
    auto error = ledger.error();  // keeps its kind: a newer schema is kFailedPrecondition
    error.message = PathOf(run_id) + ": " + error.message;
    return core::Fail(error);
  }
  return ledger;
}

core::Status LedgerStore::Update(const std::string& run_id, const std::function<void(Ledger&)>& mutate) {
  if (auto valid = ValidateRunId(run_id); !valid) return valid;
  std::lock_guard guard(mutex_);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return core::Fail(StateError(dir_, ec.message()));
  FileLock lock(PathOf(run_id) + ".lock");
  if (!lock.held()) return core::Fail(StateError(PathOf(run_id) + ".lock", "cannot lock"));
  Ledger ledger;
  auto loaded = Load(run_id);
  if (loaded) {
    ledger = std::move(*loaded);
  } else if (loaded.error().kind == core::ErrorKind::kNotFound) {
    ledger.run_id = run_id;
    ledger.created_at = Timestamp();
  } else {
    return core::Fail(loaded.error());
  }
  mutate(ledger);
  return WriteAtomically(PathOf(run_id),
                         ToJson(ledger).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

core::Result<std::vector<std::string>> LedgerStore::ListRuns() const {
  std::vector<std::string> runs;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return runs;
  for (const auto& item : fs::directory_iterator(dir_, ec)) {
    auto name = item.path().filename().string();
    if (name.size() > 5 && name.ends_with(".json")) runs.push_back(name.substr(0, name.size() - 5));
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

core::Status LedgerStore::RecordCreating(const std::string& run_id, const LedgerEntry& entry) {
  return Update(run_id, [&](Ledger& ledger) {
    std::string now = Timestamp();
    if (auto* existing = ledger.Find(entry.kind, entry.name)) {
      // A re-run of a create: the resource is being made (or adopted) again.
      existing->state = EntryState::kCreating;
      existing->details = entry.details;
      existing->owned = existing->owned || entry.owned;
      existing->updated_at = now;
      return;
    }
    LedgerEntry added = entry;
    added.state = EntryState::kCreating;
    added.created_at = now;
    added.updated_at = now;
    ledger.entries.push_back(std::move(added));
  });
}

core::Status LedgerStore::RecordState(const std::string& run_id, ResourceKind kind, const std::string& name,
                                      EntryState state, const std::string& operation, const std::string& at) {
  return Update(run_id, [&](Ledger& ledger) {
    auto* entry = ledger.Find(kind, name);
    if (entry == nullptr) {
      ledger.entries.push_back(LedgerEntry{.kind = kind, .name = name, .created_at = Timestamp()});
      entry = &ledger.entries.back();
    }
    entry->state = state;
    if (!operation.empty() || state == EntryState::kCreated || state == EntryState::kDeleted ||
        state == EntryState::kFailed) {
      entry->operation = operation;
    }
    entry->updated_at = Timestamp();
    const std::string when = at.empty() ? core::FormatTimestamp(clock_.WallNow()) : at;
    if (state == EntryState::kCreated && entry->ready_at.empty()) entry->ready_at = when;
    if (state == EntryState::kDeleted && entry->deleted_at.empty() && !entry->ready_at.empty())
      entry->deleted_at = when;
    if (state == EntryState::kPreempted && entry->preempted_at.empty() && !entry->ready_at.empty())
      entry->preempted_at = when;
  });
}

}  // namespace tputrain::state
