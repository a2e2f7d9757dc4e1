#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace tputrain::render {

struct YamlDocument {
  YAML::Node node;
  int first_line = 0;  // 0-based line of the document's text; add to the node's marks
};

struct YamlLoadError {
  int line = 0;  // 1-based, 0 when unknown
  std::string message;
};

// Every document of a YAML stream, like YAML::LoadAll, but bounded: yaml-cpp 0.7's LoadAll
// never returns on some malformed streams (a lone "," makes it allocate documents until memory
// runs out). The stream is split at document markers ("---", "..." at column 0, which YAML
// forbids inside any scalar), each piece is loaded alone, and content after a piece's document
// is an error instead of another turn of the loop.
bool LoadYamlDocuments(std::string_view text, std::vector<YamlDocument>& documents, YamlLoadError& error);

}  // namespace tputrain::render
