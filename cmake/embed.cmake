# Turns a data file into a C++ source defining `std::string_view NAME()` in NAMESPACE (default
# tputrain::emulator), so the program needs no files at run time. Bytes, not a string literal: no
# length limits.
if(NOT NAMESPACE)
  set(NAMESPACE tputrain::emulator)
endif()
file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
string(REGEX REPLACE "(([^,]*,){24})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by embed.cmake. Do not edit.\n"
  "#include <string_view>\n"
  "namespace ${NAMESPACE} {\n"
  "namespace {\nconstexpr char kData[] = {\n${bytes}\n'\\0'};\n}  // namespace\n"
  "std::string_view ${NAME}() { return std::string_view(kData, sizeof(kData) - 1); }\n"
  "}  // namespace ${NAMESPACE}\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
