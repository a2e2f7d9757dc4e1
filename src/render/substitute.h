#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tputrain/core/result.h"

namespace tputrain::render {

// Where a name was used: the renderer reports every missing name with the lines that use it.
struct Reference {
  std::string name;
  int line = 0;  // 1-based, in the text being substituted
};

// One top-level expansion in the output: [begin, end) of the rendered text came from `name`.
// The YAML checks use these spans to blame a value for a broken or retyped document.
struct Span {
  std::string name;
  std::size_t begin = 0;
  std::size_t end = 0;
  int line = 0;
};

struct Substituted {
  std::string text;
  std::vector<Span> spans;
  std::vector<Reference> missing;  // names with no value; rendered as "" (what envsubst does)
};

// Returns a variable's value, or nullopt when it has none. Unset and set-to-empty differ:
// an empty --set value is a value.
using Lookup = std::function<std::optional<std::string>(const std::string& name)>;

// GNU envsubst's syntax, byte for byte: `$NAME` and `${NAME}` with NAME = [A-Za-z_][A-Za-z0-9_]*
// (ASCII), anything else left as written (`$(X)`, `${ X}`, `$1`, a lone `$`). Two shell forms
// envsubst leaves alone are expanded here, the documented difference:
//   ${NAME:-word}  word (itself expanded) when NAME is unset or empty
//   ${NAME:?word}  an error carrying word when NAME is unset or empty
// A `${NAME:` form with no closing brace stays literal, as envsubst leaves it. Missing names
// are collected, not fatal: strictness is the caller's choice. `source` names the text in
// error messages ("raycluster.yaml").
core::Result<Substituted> Substitute(std::string_view text, const Lookup& lookup, std::string_view source);

// Every name the text references (in order of first use, with each line), without values:
// what `render --describe` and the missing-variable report list.
std::vector<Reference> References(std::string_view text);

// The rendered text with each span replaced by a distinct plain token ("tputrainvalue7x"),
// which YAML always reads as a string: the shape the template has regardless of the values.
std::string WithPlaceholders(const Substituted& substituted);
std::string PlaceholderFor(std::size_t index);

}  // namespace tputrain::render
