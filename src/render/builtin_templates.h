#pragma once

#include <span>
#include <string_view>

namespace tputrain::render {

// One file of a template compiled into tputrain (cmake/embed_templates.cmake writes the table
// from templates/ at build time).
struct BuiltinTemplateFile {
  std::string_view template_name;
  std::string_view file_name;
  std::string_view text;
};

// Every built-in template's files, by template name, then file name.
std::span<const BuiltinTemplateFile> BuiltinTemplateFiles();

}  // namespace tputrain::render
