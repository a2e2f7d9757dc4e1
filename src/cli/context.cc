#include "tputrain/cli/context.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "companion_program.h"
#include "output/output.h"
#include "output/terminal_reporter.h"
#include "tputrain/cli/process_factory.h"
#include "tputrain/workflow/root.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::cli {

OutputFormat GlobalOptions::output_format() const {
  if (format == "json") return OutputFormat::kJson;
  if (format == "yaml") return OutputFormat::kYaml;
  // "wide" is a table too
  return OutputFormat::kTable;
}

IOStreams ProcessFactory::streams() {
  IOStreams streams{std::cin, std::cout, std::cerr};
  streams.in_is_tty = isatty(STDIN_FILENO) == 1;
  streams.out_is_tty = isatty(STDOUT_FILENO) == 1;
  streams.err_is_tty = isatty(STDERR_FILENO) == 1;
  if (streams.out_is_tty) streams.out_columns = TerminalColumns(STDOUT_FILENO);
  if (streams.err_is_tty) streams.err_columns = TerminalColumns(STDERR_FILENO);
  return streams;
}

namespace {

std::string ThisExecutable() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "" : path.string();
}

// The caller's output streams over the process's leaves.
class StreamsFactory final : public Factory {
 public:
  StreamsFactory(std::ostream& out, std::ostream& err) : out_(out), err_(err), leaves_(nullptr) {}
  IOStreams streams() override { return {std::cin, out_, err_}; }
  workflow::Leaves& leaves() override { return leaves_; }
  core::CancelToken* cancel() override { return nullptr; }
  std::string executable() override { return ThisExecutable(); }
  core::Result<int> Exec(const std::string& path, const std::vector<std::string>& args, const core::Env&) override {
    return core::Fail(ExecCompanionProgram(path, args));
  }

 private:
  std::ostream& out_;
  std::ostream& err_;
  workflow::ProcessLeaves leaves_;
};

}  // namespace

std::string ProcessFactory::executable() { return ThisExecutable(); }

core::Result<int> ProcessFactory::Exec(const std::string& path, const std::vector<std::string>& args,
                                       const core::Env&) {
  return core::Fail(ExecCompanionProgram(path, args));
}

Context::Context(core::Env environment, Factory& factory, std::unique_ptr<Factory>&& owned)
    : env(std::move(environment)), in(factory.streams().in), out(factory.streams().out), err(factory.streams().err),
      owned_factory_(std::move(owned)), factory_(factory) {
  const IOStreams streams = factory.streams();
  stdin_is_tty = streams.in_is_tty;
  stdout_is_tty = streams.out_is_tty;
  stderr_is_tty = streams.err_is_tty;
  stdout_columns = streams.out_columns;
  stderr_columns = streams.err_columns;
  cancel = factory.cancel();
  // The Ray token tpu-vm create --ray keeps in node metadata: whoever reads a node reads it.
  redactor.HoldField(workflow::kRayTokenKey);
}

Context::Context(core::Env environment, Factory& factory) : Context(std::move(environment), factory, nullptr) {}

Context::Context(core::Env environment, std::ostream& out_stream, std::ostream& err_stream)
    : Context(std::move(environment), std::make_unique<StreamsFactory>(out_stream, err_stream)) {}

Context::Context(core::Env environment, std::unique_ptr<Factory>&& owned)
    : Context(std::move(environment), *owned, std::move(owned)) {}

Context::~Context() = default;

// Built on first use, after flags are parsed, so that --quiet and --verbose are known.
core::Reporter& Context::reporter() {
  if (!reporter_) {
    reporter_ = std::make_unique<TerminalReporter>(err, stderr_is_tty, StderrWidth(*this), global.quiet, global.verbose,
                                                   redactor);
  }
  return *reporter_;
}

workflow::Root& Context::stack() {
  if (!stack_) {
    workflow::RootOptions options{env, out, err, in, redactor, reporter(), cancel, [this] { return settings(); }};
    options.interactive = stdin_is_tty && stderr_is_tty && !global.quiet;
    options.dry_run = global.dry_run;
    options.verbose = global.verbose;
    options.log_http = global.log_http;
    options.refresh_prices = global.refresh_prices;
    options.access_token_file = global.access_token_file;
    options.billing_api_key = global.billing_api_key;
    options.timeline = timeline;
    stack_ = std::make_unique<workflow::Root>(std::move(options), factory_.leaves());
  }
  return *stack_;
}

core::Result<config::Settings> Context::settings() {
  if (!settings_) {
    core::Timeline::Span span(timeline, "config");
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
