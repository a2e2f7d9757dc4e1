# The module graph lives in cmake/modules.graph, one line per module: `module: what it uses`.
# tputrain_module links each module to exactly those modules, so the build cannot drift from the
# file; tests/layout/check_boundaries.sh holds every #include to the same file.
set(TPUTRAIN_MODULE_GRAPH ${CMAKE_CURRENT_LIST_DIR}/modules.graph)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${TPUTRAIN_MODULE_GRAPH})

set(TPUTRAIN_MODULES)
file(STRINGS ${TPUTRAIN_MODULE_GRAPH} tputrain_graph_lines ENCODING UTF-8)
foreach(line IN LISTS tputrain_graph_lines)
  string(REGEX REPLACE "#.*" "" line "${line}")
  string(STRIP "${line}" line)
  if(line STREQUAL "")
    continue()
  endif()
  if(NOT line MATCHES "^([a-z0-9_]+):(.*)$")
    message(FATAL_ERROR "${TPUTRAIN_MODULE_GRAPH}: expected `module: dependency ...`, got `${line}`")
  endif()
  set(module ${CMAKE_MATCH_1})
  separate_arguments(deps UNIX_COMMAND "${CMAKE_MATCH_2}")
  foreach(dep IN LISTS deps)
    if(NOT dep IN_LIST TPUTRAIN_MODULES)
      message(FATAL_ERROR "${TPUTRAIN_MODULE_GRAPH}: ${module} uses ${dep}, which is not declared above it "
                          "(list modules in dependency order; the graph has no cycles)")
    endif()
  endforeach()
  list(APPEND TPUTRAIN_MODULES ${module})
  set(TPUTRAIN_MODULE_DEPS_${module} ${deps})
endforeach()

# tputrain_module(NAME SOURCES... [DEPS third-party...] [PRIVATE_DEPS third-party...]
#                 [PRECOMPILE headers...]) declares one static library per module, linked publicly
# to the modules the graph gives it. It reuses the shared precompiled header, or with PRECOMPILE
# builds its own with those headers added (CLI11 for cli).
function(tputrain_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;PRIVATE_DEPS;PRECOMPILE" ${ARGN})
  if(NOT name IN_LIST TPUTRAIN_MODULES)
    message(FATAL_ERROR "module ${name} is not in cmake/modules.graph: add `${name}: <modules it uses>`")
  endif()
  foreach(dep IN LISTS M_DEPS M_PRIVATE_DEPS)
    if(dep MATCHES "^tputrain_(.+)$" AND CMAKE_MATCH_1 IN_LIST TPUTRAIN_MODULES)
      message(FATAL_ERROR "tputrain_module(${name}): ${dep}: module dependencies are declared only in "
                          "cmake/modules.graph")
    endif()
  endforeach()
  set(module_deps)
  foreach(dep IN LISTS TPUTRAIN_MODULE_DEPS_${name})
    list(APPEND module_deps tputrain_${dep})
  endforeach()
  add_library(tputrain_${name} STATIC ${M_SOURCES})
  target_include_directories(tputrain_${name} PUBLIC
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/generated)
  # The module's private headers (include/tputrain/<module>/ holds only what others use).
  target_include_directories(tputrain_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src/${name})
  target_link_libraries(tputrain_${name} PUBLIC ${module_deps} ${M_DEPS} PRIVATE ${M_PRIVATE_DEPS} tputrain_warnings)
  if(M_PRECOMPILE AND TPUTRAIN_PCH)
    target_precompile_headers(tputrain_${name} PRIVATE ${TPUTRAIN_PCH_STD} <nlohmann/json.hpp> ${M_PRECOMPILE})
  else()
    tputrain_reuse_pch(tputrain_${name} tputrain_pch)
  endif()
endfunction()
