#include "yaml_documents.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>

#include "tputrain/yaml/bounded.h"

namespace tputrain::render {
namespace {

bool IsMarker(std::string_view line, std::string_view marker) {
  return line.substr(0, 3) == marker && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}

// Consumes events without building anything: only whether a further document exists matters.
class Discard final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

bool LoadPiece(const std::string& piece, int first_line, std::vector<YamlDocument>& documents, YamlLoadError& error) {
  try {
    std::istringstream stream(piece);
    YAML::Parser parser(stream);
    Discard discard;
    parser.HandleNextDocument(discard);
    if (parser.HandleNextDocument(discard)) {
      error = {first_line + 1, "unexpected content after the document"};
      return false;
    }
    YAML::Node document = YAML::Load(piece);
    if (auto bounded = yaml::CheckExpansion(document, "the template"); !bounded) {
      error = {first_line + 1, bounded.error().message};
      return false;
    }
    documents.push_back({document, first_line});
  } catch (const YAML::Exception& e) {
    error = {e.mark.is_null() ? 0 : first_line + e.mark.line + 1, e.msg};
    return false;
  }
  return true;
}

}  // namespace

bool LoadYamlDocuments(std::string_view text, std::vector<YamlDocument>& documents, YamlLoadError& error) {
  std::string piece;
  int piece_line = 0;
  int line = 0;
  bool has_marker = false;  // the piece opened with "---": an explicit, possibly empty, document
  std::size_t start = 0;
  auto flush = [&](bool keep_empty) {
    const bool blank = piece.find_first_not_of(" \t\r\n") == std::string::npos;
    if (!blank || keep_empty) {
      if (!LoadPiece(piece, piece_line, documents, error)) return false;
    }
    return true;
  };
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    const std::string_view current = text.substr(start, end - start);
    if (IsMarker(current, "---")) {
      if (!flush(has_marker)) return false;
      piece.clear();
      piece_line = line;
      has_marker = true;
    }
    piece.append(current);
    if (!last) piece += '\n';
    if (IsMarker(current, "...")) {
      if (!flush(true)) return false;
      piece.clear();
      piece_line = line + 1;
      has_marker = false;
    }
    ++line;
    if (last) break;
    start = end + 1;
  }
  return flush(has_marker);
}

}  // namespace tputrain::render
