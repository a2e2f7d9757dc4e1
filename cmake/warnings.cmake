# Every target links tputrain_warnings, so the warning set lives in one place.
add_library(tputrain_warnings INTERFACE)
target_compile_options(tputrain_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
  -Woverloaded-virtual -Wimplicit-fallthrough
  -Wno-missing-field-initializers)  # designated initializers leave the rest defaulted on purpose
option(TPUTRAIN_WERROR "Treat warnings as errors" ON)
if(TPUTRAIN_WERROR)
  target_compile_options(tputrain_warnings INTERFACE -Werror)
endif()

# tputrain_module(NAME SOURCES... DEPS...) declares one static library per module.
function(tputrain_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(tputrain_${name} STATIC ${M_SOURCES})
  target_include_directories(tputrain_${name} PUBLIC
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/generated)
  target_link_libraries(tputrain_${name} PUBLIC ${M_DEPS} PRIVATE ${M_PRIVATE_DEPS} tputrain_warnings)
endfunction()
