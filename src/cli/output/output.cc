#include "output/output.h"

#include <ostream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "tputrain/core/wrap.h"

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
      context.out << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      break;
    case OutputFormat::kYaml:
      context.out << ToYaml(json);
      break;
    case OutputFormat::kTable: {
      const TableLayout layout = TableLayoutFor(context);
      if (layout.width == 0) {
        const TableLayout before = TableLayoutOf(context.out);
        SetTableLayout(context.out, layout);
        print_table(context.out);
        SetTableLayout(context.out, before);
        break;
      }
      // On a terminal the tables fit already; the prose around them (a plan's why:, a footer)
      // is wrapped at spaces to fit too.
      std::ostringstream text;
      SetTableLayout(text, layout);
      print_table(text);
      context.out << core::WrapToWidth(text.str(), layout.width);
      break;
    }
  }
}

void PrintListTable(Context& context, std::ostream& out, const std::vector<std::string>& headers,
                    const std::vector<std::vector<std::string>>& rows, std::string_view none,
                    const std::vector<std::string>& give_way) {
  if (rows.empty()) {
    context.reporter().Info(none);
    return;
  }
  PrintTable(out, headers, rows, give_way);
}

void SayOnStderr(Context& context, std::string_view text) {
  context.err << core::WrapToWidth(text, StderrWidth(context)) << "\n";
}

}  // namespace tputrain::cli
