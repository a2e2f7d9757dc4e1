#include "tputrain/cli/output.h"

#include <algorithm>
#include <ostream>

#include <yaml-cpp/yaml.h>

namespace tputrain::cli {
namespace {

void EmitYaml(YAML::Emitter& emitter, const nlohmann::json& json) {
  switch (json.type()) {
    case nlohmann::json::value_t::object:
      emitter << YAML::BeginMap;
      for (const auto& [key, value] : json.items()) {
        emitter << YAML::Key << key << YAML::Value;
        EmitYaml(emitter, value);
      }
      emitter << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      emitter << YAML::BeginSeq;
      for (const auto& value : json) EmitYaml(emitter, value);
      emitter << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      emitter << YAML::DoubleQuoted << json.get<std::string>();
      break;
    }
    case nlohmann::json::value_t::null:
      emitter << YAML::Null;
      break;
    default:
      emitter << json.dump();  // numbers and booleans read the same in YAML
      break;
  }
}

}  // namespace

std::string ToYaml(const nlohmann::json& json) {
  YAML::Emitter emitter;
  EmitYaml(emitter, json);
  return std::string(emitter.c_str()) + "\n";
}

core::Status RefuseFormat(const Context& context, OutputFormat refused, std::string_view what) {
  if (context.global.output_format() != refused) return {};
  return core::Fail(core::Error::Usage("--format " + context.global.format + ": " + std::string(what)));
}

void PrintResult(Context& context, const nlohmann::json& json, const std::function<void(std::ostream&)>& print_table) {
  switch (context.global.output_format()) {
    case OutputFormat::kJson:
      context.out << json.dump(2) << "\n";
      break;
    case OutputFormat::kYaml:
      context.out << ToYaml(json);
      break;
    case OutputFormat::kTable:
      print_table(context.out);
      break;
  }
}

void PrintTable(std::ostream& out, const std::vector<std::string>& headers,
                const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(headers.size(), 0);
  for (size_t i = 0; i < headers.size(); ++i) widths[i] = headers[i].size();
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < widths.size(); ++i) {
      std::string cell = i < cells.size() ? cells[i] : "";
      line += cell;
      if (i + 1 < widths.size()) line += std::string(widths[i] - cell.size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  std::vector<std::string> upper;
  for (auto header : headers) {
    std::transform(header.begin(), header.end(), header.begin(), [](unsigned char c) { return std::toupper(c); });
    upper.push_back(header);
  }
  print_row(upper);
  for (const auto& row : rows) print_row(row);
}

}  // namespace tputrain::cli
