# Every target links tputrain_warnings, so the warning set lives in one place.
add_library(tputrain_warnings INTERFACE)
target_compile_options(tputrain_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
  -Woverloaded-virtual -Wimplicit-fallthrough
  -Wno-missing-field-initializers)  # designated initializers leave the rest defaulted on purpose
# GCC 12 at -O2 reports some inlined std::string copies as out of bounds: a known false positive
# of that release, which the precompiled header (the standard headers parsed first) provokes in
# more translation units. It stays a warning, not an error.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(tputrain_warnings INTERFACE -Wno-error=array-bounds)
endif()
# GCC's -Wmaybe-uninitialized misfires on the sanitizers' instrumentation (GCC's manual warns of
# it), e.g. on std::function inside Catch2's main: off in the sanitizer build only.
if(TPUTRAIN_SANITIZE)
  target_compile_options(tputrain_warnings INTERFACE -Wno-maybe-uninitialized)
endif()
option(TPUTRAIN_WERROR "Treat warnings as errors" ON)
if(TPUTRAIN_WERROR)
  target_compile_options(tputrain_warnings INTERFACE -Werror)
endif()
