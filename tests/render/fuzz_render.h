#pragma once

#include <string_view>

namespace tputrain::render::fuzz {

// One fuzz input through everything the renderer does to untrusted text: values parsing,
// substitution, placeholders, the YAML checks and scalar resolution. Input layout: lines of
// NAME=VALUE, a '\x01', then the template. Must never crash, hang or throw.
void RenderOnce(std::string_view data);

}  // namespace tputrain::render::fuzz
