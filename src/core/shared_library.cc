#include "tputrain/core/shared_library.h"

#include <dlfcn.h>

namespace tputrain::core {

Result<SharedLibrary> SharedLibrary::Open(const std::string& soname, const std::string& package) {
  // RTLD_LOCAL: its symbols serve the resolved pointers only, never another library's lookups.
  // RTLD_LAZY: a function of the library or of what it brings is bound when first called, as a
  // linked library's is; RTLD_NOW bound every function of libcurl's 35 libraries (Kerberos, LDAP,
  // SSH) that a command never calls, 1-1.8 ms more of the load the first request waits for
  // (libraries built with BIND_NOW, libcurl itself among them, still bind theirs at once). The
  // functions tputrain calls are looked up here (Symbol) and checked before any is used.
  void* handle = dlopen(soname.c_str(), RTLD_LAZY | RTLD_LOCAL);
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
