#include "tputrain/cli/context.h"

#include "output/terminal_reporter.h"
#include "stack.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::cli {

OutputFormat GlobalOptions::output_format() const {
  if (format == "json") return OutputFormat::kJson;
  if (format == "yaml") return OutputFormat::kYaml;
  // "wide" is a table too
  return OutputFormat::kTable;
}

Context::Context(core::Env environment, std::ostream& out_stream, std::ostream& err_stream)
    : env(std::move(environment)), out(out_stream), err(err_stream) {
  // The Ray token tpu-vm create --ray keeps in node metadata: whoever reads a node reads it.
  redactor.HoldField(workflow::kRayTokenKey);
}

Context::~Context() = default;

// Built on first use, after flags are parsed, so that --quiet and --verbose are known.
core::Reporter& Context::reporter() {
  if (!reporter_) {
    reporter_ = std::make_unique<TerminalReporter>(err, stderr_is_tty, global.quiet, global.verbose, redactor);
  }
  return *reporter_;
}

Stack& Context::stack() {
  if (!stack_) stack_ = std::make_unique<Stack>(*this);
  return *stack_;
}

core::Result<config::Settings> Context::settings() {
  if (!settings_) {
    config::SettingsSources sources;
    sources.flags = {
        {"project", global.project}, {"location", global.location}, {"quota_project", global.billing_project}};
    sources.env = env;
    sources.config_file = global.config_file;
    settings_ = config::ResolveSettings(sources);
  }
  return *settings_;
}

}  // namespace tputrain::cli
