# Optimisation, debug info and sanitizers for the RelWithDebInfo build, set in one place.
#
# TPUTRAIN_DEBUG_INFO: `full` (-g) for local debugging; `lines` (-g1: function names and line
# tables, enough for backtraces and sanitizer reports) is what CI builds: measured per TU, -g1
# compiles 15-30% faster than -g and objects are a quarter of the size, so links are faster too.
set(TPUTRAIN_DEBUG_INFO full CACHE STRING "Debug info of RelWithDebInfo builds: full (-g), lines (-g1) or none")
set_property(CACHE TPUTRAIN_DEBUG_INFO PROPERTY STRINGS full lines none)
# TPUTRAIN_SANITIZE: AddressSanitizer and UndefinedBehaviorSanitizer, -O1 (as the sanitizers'
# documentation recommends), any finding fatal. scripts/test.sh builds the unit tests so.
option(TPUTRAIN_SANITIZE "Build with ASan and UBSan (-O1; a finding aborts the process)" OFF)

# TPUTRAIN_OPTIMIZE: the -O level of RelWithDebInfo builds. Releases and benchmarks use 2; CI
# builds the suite at 1 (scripts/build.sh): the tests check behaviour, not speed, and -O1
# compiles a quarter faster per TU (measured here on three of the heaviest files: 5.9/4.7/7.5 s
# of CPU against 7.5/5.7/10.5 at -O2). The sanitized build is always -O1.
set(TPUTRAIN_OPTIMIZE 2 CACHE STRING "Optimisation level of RelWithDebInfo builds: 1, 2 or 3")
set_property(CACHE TPUTRAIN_OPTIMIZE PROPERTY STRINGS 1 2 3)
if(NOT TPUTRAIN_OPTIMIZE MATCHES "^[123]$")
  message(FATAL_ERROR "TPUTRAIN_OPTIMIZE must be 1, 2 or 3, got '${TPUTRAIN_OPTIMIZE}'")
endif()
set(tputrain_optimize -O${TPUTRAIN_OPTIMIZE})
if(TPUTRAIN_SANITIZE)
  set(tputrain_optimize -O1)
endif()
if(TPUTRAIN_DEBUG_INFO STREQUAL "full")
  set(tputrain_debug -g)
elseif(TPUTRAIN_DEBUG_INFO STREQUAL "lines")
  set(tputrain_debug -g1)
elseif(TPUTRAIN_DEBUG_INFO STREQUAL "none")
  set(tputrain_debug "")
else()
  message(FATAL_ERROR "TPUTRAIN_DEBUG_INFO must be full, lines or none, got '${TPUTRAIN_DEBUG_INFO}'")
endif()
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "${tputrain_optimize} ${tputrain_debug} -DNDEBUG")

if(TPUTRAIN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Link only the shared libraries a binary uses: each one loaded costs start-up time
# (bench/startup.sh measures tputrain against a hello world linked to the same set).
add_link_options(LINKER:--as-needed)
