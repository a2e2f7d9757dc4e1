#include "render/fuzz_render.h"

#include <map>
#include <string>

#include "substitute.h"
#include "tputrain/render/values.h"
#include "yaml_check.h"

namespace tputrain::render::fuzz {

void RenderOnce(std::string_view data) {
  const auto split = data.find('\x01');
  const std::string_view values_text = split == std::string_view::npos ? std::string_view() : data.substr(0, split);
  const std::string_view text = split == std::string_view::npos ? data : data.substr(split + 1);

  std::map<std::string, std::string> values;
  std::size_t start = 0;
  while (start < values_text.size()) {
    auto end = values_text.find('\n', start);
    if (end == std::string_view::npos) end = values_text.size();
    if (auto assignment = ParseAssignment(values_text.substr(start, end - start), "--set")) {
      values[assignment->first] = assignment->second;
    }
    start = end + 1;
  }
  (void)ParseValuesYaml(std::string(values_text), "fuzz");

  const Lookup lookup = [&values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
  (void)References(text);
  auto rendered = Substitute(text, lookup, "fuzz.yaml");
  if (!rendered) return;
  (void)WithPlaceholders(*rendered);
  // Names starting with N are ints, B bools, the rest strings: every branch of the type check.
  (void)CheckRenderedYaml("fuzz.yaml", *rendered, [](const std::string& name) {
    if (!name.empty() && name[0] == 'N') return ValueType::kInt;
    if (!name.empty() && name[0] == 'B') return ValueType::kBool;
    return ValueType::kString;
  });
  for (const auto& [name, value] : values) (void)ResolvePlain(value);
}

}  // namespace tputrain::render::fuzz
