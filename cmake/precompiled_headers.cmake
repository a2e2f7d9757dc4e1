# Precompiled headers: the standard library and nlohmann/json are parsed by most translation
# units (json alone is ~25k lines), Catch2 by every test, CLI11 by the commands. Measured per TU
# at -O2 -g1: 15-35% less compile time. Each header set is compiled once and shared with
# REUSE_FROM. CMake adds -Winvalid-pch, which -Werror makes fatal: a precompiled header that GCC
# would silently skip (flags differing from the target that built it) fails the build instead.
option(TPUTRAIN_PCH "Use precompiled headers" ON)

set(TPUTRAIN_PCH_STD <functional> <map> <memory> <optional> <string> <string_view> <vector>)

if(TPUTRAIN_PCH)
  # Only carries the modules' precompiled header, for tputrain_module's REUSE_FROM.
  add_library(tputrain_pch STATIC ${CMAKE_CURRENT_LIST_DIR}/pch_anchor.cc)
  target_link_libraries(tputrain_pch PRIVATE nlohmann_json::nlohmann_json tputrain_warnings)
  target_precompile_headers(tputrain_pch PRIVATE ${TPUTRAIN_PCH_STD} <nlohmann/json.hpp>)
endif()

# tputrain_reuse_pch(TARGET FROM): TARGET compiles with FROM's precompiled header.
function(tputrain_reuse_pch target from)
  if(TPUTRAIN_PCH)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()
