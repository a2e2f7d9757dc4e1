#include "tputrain/yaml/bounded.h"

#include <sstream>
#include <string>

#include <yaml-cpp/eventhandler.h>

namespace tputrain::yaml {
namespace {

core::Error TooMuch(std::string_view what, const std::string& why) {
  return core::Error::Usage(std::string(what) + ": " + why);
}

// Visits the node tree as a walker would see it (an alias once per reference), stopping at the
// first limit: never more than max_nodes + 1 visits, never deeper than max_depth frames.
class Walk {
 public:
  Walk(std::string_view what, const Limits& limits) : what_(what), limits_(limits) {}

  core::Status Visit(const YAML::Node& node, size_t depth) {
    if (++nodes_ > limits_.max_nodes) {
      return core::Fail(TooMuch(what_, "more than " + std::to_string(limits_.max_nodes) +
                                           " YAML nodes once its aliases are expanded (an alias bomb?)"));
    }
    if (depth > limits_.max_depth) {
      return core::Fail(TooMuch(what_, "YAML nested deeper than " + std::to_string(limits_.max_depth) + " levels"));
    }
    if (node.IsSequence()) {
      for (const auto& item : node) {
        if (auto status = Visit(item, depth + 1); !status) return status;
      }
    } else if (node.IsMap()) {
      for (const auto& item : node) {
        if (auto status = Visit(item.first, depth + 1); !status) return status;
        if (auto status = Visit(item.second, depth + 1); !status) return status;
      }
    }
    return {};
  }

 private:
  std::string_view what_;
  const Limits& limits_;
  size_t nodes_ = 0;
};

core::Error NotYaml(std::string_view what, const YAML::Exception& e) {
  std::string where = e.mark.is_null() ? "" : " at line " + std::to_string(e.mark.line + 1);
  return core::Error::Usage(std::string(what) + ": not valid YAML" + where + ": " + e.msg);
}

// Counts documents and nothing else: the parser's events, without a node built.
class DocumentCounter final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override { ++documents; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  size_t documents = 0;
};

// yaml-cpp 0.7's LoadAll never ends on a ',' outside a flow collection ("- a\n," or '"x",', even
// "," alone): each pass yields one more empty document without consuming the token, and the
// vector of documents grows until memory runs out (a 458-byte text took gigabytes). The stream is
// read first event by event, no nodes built, and refused once it yields more documents than its
// text could hold ("---" is the shortest separator).
core::Status CheckDocumentsEnd(std::string_view text, std::string_view what) {
  std::istringstream stream{std::string(text)};
  YAML::Parser parser(stream);
  DocumentCounter counter;
  const size_t most = text.size() / 3 + 1;
  try {
    while (parser.HandleNextDocument(counter)) {
      if (counter.documents > most) {
        return core::Fail(core::Error::Usage(
            std::string(what) + ": not valid YAML: a document that never ends (a ',' outside [ ] or { }?)"));
      }
    }
  } catch (const YAML::Exception& e) {
    return core::Fail(NotYaml(what, e));
  }
  return {};
}

core::Status CheckSize(std::string_view text, std::string_view what, const Limits& limits) {
  if (text.size() > limits.max_bytes) {
    return core::Fail(TooMuch(what, "larger than " + std::to_string(limits.max_bytes) + " bytes"));
  }
  return {};
}

}  // namespace

core::Status CheckExpansion(const YAML::Node& node, std::string_view what, const Limits& limits) {
  return Walk(what, limits).Visit(node, 0);
}

core::Result<std::vector<YAML::Node>> LoadAll(std::string_view text, std::string_view what, const Limits& limits) {
  if (auto size = CheckSize(text, what, limits); !size) return core::Fail(size.error());
  if (auto ends = CheckDocumentsEnd(text, what); !ends) return core::Fail(ends.error());
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    // yaml-cpp bounds its own parser's recursion (DeepRecursion) and reports it here too.
    return core::Fail(NotYaml(what, e));
  }
  Walk walk(what, limits);  // one budget for the whole text
  for (const auto& document : documents) {
    if (auto status = walk.Visit(document, 0); !status) return core::Fail(status.error());
  }
  return documents;
}

core::Result<YAML::Node> Load(std::string_view text, std::string_view what, const Limits& limits) {
  if (auto size = CheckSize(text, what, limits); !size) return core::Fail(size.error());
  YAML::Node node;
  try {
    node = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return core::Fail(NotYaml(what, e));
  }
  if (auto status = CheckExpansion(node, what, limits); !status) return core::Fail(status.error());
  return node;
}

}  // namespace tputrain::yaml
