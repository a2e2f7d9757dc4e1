# Writes OUTPUT, a C++ source holding every file of the templates under TEMPLATES_DIR
# (TEMPLATES_DIR/<template>/<file>) as raw string literals, for render::BuiltinTemplateFiles():
# the templates are compiled into tputrain, so that the binary alone renders them, and the files
# in templates/ stay their one source. Run by the build (cmake -P) whenever a template changes;
# OUTPUT is rewritten only when its text changes.
cmake_minimum_required(VERSION 3.20)
if(NOT TEMPLATES_DIR OR NOT OUTPUT)
  message(FATAL_ERROR "usage: cmake -DTEMPLATES_DIR=DIR -DOUTPUT=FILE -P embed_templates.cmake")
endif()
set(delimiter "tputrain_tmpl")  # a raw string delimiter is at most 16 characters
file(GLOB template_files RELATIVE ${TEMPLATES_DIR} ${TEMPLATES_DIR}/*/*)
list(SORT template_files)
set(entries "")
foreach(relative IN LISTS template_files)
  if(IS_DIRECTORY ${TEMPLATES_DIR}/${relative})
    message(FATAL_ERROR "${TEMPLATES_DIR}/${relative}: templates hold files only, not directories")
  endif()
  get_filename_component(template_name ${relative} DIRECTORY)
  get_filename_component(file_name ${relative} NAME)
  file(READ ${TEMPLATES_DIR}/${relative} text)
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${TEMPLATES_DIR}/${relative} holds )${delimiter}\", which ends the literal")
  endif()
  string(APPEND entries "    {\"${template_name}\", \"${file_name}\", R\"${delimiter}(${text})${delimiter}\"},\n")
endforeach()
set(source "// Generated from templates/ by cmake/embed_templates.cmake: do not edit.
#include \"builtin_templates.h\"

namespace tputrain::render {

std::span<const BuiltinTemplateFile> BuiltinTemplateFiles() {
  static constexpr BuiltinTemplateFile kFiles[] = {
${entries}  };
  return kFiles;
}

}  // namespace tputrain::render
")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} previous)
  if(previous STREQUAL source)
    return()
  endif()
endif()
file(WRITE ${OUTPUT} "${source}")
