#pragma once

// A shared library opened when a command first needs it (dlopen) rather than linked: every
// linked library is loaded and relocated at each start, so the big ones that only some commands
// use (libcurl for requests, libarchive for build contexts) would cost every command, --version
// included, their start-up.

#include <mutex>
#include <string>

#include "tputrain/core/result.h"

namespace tputrain::core {

class SharedLibrary {
 public:
  // Opens `soname` (e.g. "libcurl.so.4"); the error names it and the Debian `package` that
  // provides it. The handle is never closed: the functions resolved stay valid for the process.
  static Result<SharedLibrary> Open(const std::string& soname, const std::string& package);

  // Sets `function` to the symbol `name`, or to nullptr and remembers the first one missing.
  template <class Function>
  void Resolve(const char* name, Function& function) {
    function = reinterpret_cast<Function>(Symbol(name));
  }

  // Fails naming the first function Resolve did not find.
  Status Complete(const std::string& needed_version) const;

 private:
  SharedLibrary(void* handle, std::string soname) : handle_(handle), soname_(std::move(soname)) {}
  void* Symbol(const char* name);

  void* handle_;
  std::string soname_;
  std::string missing_;
};

// The function table a library's `load` builds, loaded at most once per process (dlopen and a
// library's global set-up are process-wide by nature), from any thread; a failure is kept too,
// so that every caller reports the same cause. Each table type has its own.
template <class Table>
Result<const Table*> LoadOnce(Result<Table> (*load)()) {
  static std::once_flag once;
  static Result<Table> table = Fail(Error::Internal("not loaded"));
  std::call_once(once, [load] { table = load(); });
  if (!table) return Fail(table.error());
  return &*table;
}

}  // namespace tputrain::core
