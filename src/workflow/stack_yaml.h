#pragma once

// A stack file's text as JSON, each value's line kept, its ${VAR} read from the environment
// (private to the workflow module).
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/core/env.h"
#include "tputrain/core/result.h"

namespace tputrain::workflow::internal {

// The stack file's own limits, well inside the loader's: a path is a page of YAML.
inline constexpr size_t kStackFileMaxBytes = 1024 * 1024;
inline constexpr size_t kStackFileMaxNodes = 100'000;
inline constexpr size_t kStackFileMaxDepth = 64;

// A document and where each of its values is: "cluster.nodepools[0].num-nodes" → line (from 1).
struct LocatedJson {
  nlohmann::json value;
  std::map<std::string, int> lines;

  // The line of `path`, else of the nearest enclosing value that has one (1 at worst).
  int LineOf(const std::string& path) const;
};

// "a.b" + "c" → "a.b.c"; "" + "c" → "c".
std::string ChildPath(const std::string& parent, const std::string& key);
// "a.b" + 2 → "a.b[2]".
std::string ItemPath(const std::string& parent, size_t index);

// `text`'s one document. Every scalar's ${VAR} and ${VAR:-default} are replaced from `env`
// ($${ is a literal ${); a plain scalar is then typed as YAML types it (true/false, integers,
// null), a quoted one stays a string. A value that is not UTF-8, or that holds a control
// character (but for newlines and tabs under `multiline_under`), is refused. Failures are one
// line: "FILE:LINE: PATH: what is wrong", kInvalidArgument.
core::Result<LocatedJson> LoadLocatedYaml(std::string_view text, const std::string& file, const core::Env& env,
                                          const std::string& multiline_under);

// "FILE:LINE: PATH: message" (PATH left out when empty).
std::string Where(const std::string& file, int line, const std::string& path, const std::string& message);

}  // namespace tputrain::workflow::internal
