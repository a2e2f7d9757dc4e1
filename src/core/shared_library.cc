#include "tputrain/core/shared_library.h"

#include <dlfcn.h>

namespace tputrain::core {

Result<SharedLibrary> SharedLibrary::Open(const std::string& soname, const std::string& package) {
  // RTLD_LOCAL: its symbols serve the resolved pointers only, never another library's lookups.
  void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Fail(
        Error::Make(ErrorKind::kFailedPrecondition, "cannot load " + soname + " (install the " + package +
                                                        " package): " + (why != nullptr ? why : "unknown error")));
  }
  return SharedLibrary(handle, soname);
}

void* SharedLibrary::Symbol(const char* name) {
  void* symbol = dlsym(handle_, name);
  if (symbol == nullptr && missing_.empty()) missing_ = name;
  return symbol;
}

Status SharedLibrary::Complete(const std::string& needed_version) const {
  if (missing_.empty()) return {};
  return Fail(Error::Make(ErrorKind::kFailedPrecondition,
                          soname_ + " has no " + missing_ + " (" + needed_version + " or newer is needed)"));
}

}  // namespace tputrain::core
