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
