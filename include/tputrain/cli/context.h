#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tputrain/config/settings.h"
#include "tputrain/core/cancel.h"
#include "tputrain/core/env.h"
#include "tputrain/core/redact.h"
#include "tputrain/core/reporter.h"
#include "tputrain/core/result.h"
#include "tputrain/core/timeline.h"

namespace tputrain::workflow {
class Leaves;
class Root;
}  // namespace tputrain::workflow

namespace tputrain::cli {

enum class OutputFormat { kTable, kJson, kYaml };

// Flags every command accepts (before or after the command name).
struct GlobalOptions {
  std::string project;
  std::string location;
  std::string format = "table";  // table, wide, json or yaml
  std::string config_file;
  std::string access_token_file;
  std::string billing_project;
  std::string billing_api_key;  // the Cloud Billing Catalog's, else TPUTRAIN_BILLING_API_KEY
  bool refresh_prices = false;
  bool quiet = false;
  bool verbose = false;
  bool log_http = false;
  bool dry_run = false;

  // --format wide is a table (kTable) with full names: wide() says which.
  OutputFormat output_format() const;
  bool wide() const { return format == "wide"; }
};

// The streams a command reads and writes, and what they are connected to.
struct IOStreams {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  bool in_is_tty = false;
  bool out_is_tty = false;
  bool err_is_tty = false;
  int out_columns = 0;  // the terminal's width when out is one (0: unknown)
  int err_columns = 0;  // the same for err
};

// Where a command's streams and connections come from (kubectl's Factory and IOStreams are the
// model): the process's (ProcessFactory: its standard streams and terminals, libcurl, the system
// clock, Ctrl-C), or a test's, which runs commands in-process over the fake transport and the
// fake clock (tests/testing/test_factory.h). The composition root, workflow::Root, is built over
// its leaves by Context::stack(); every decorator above them is the same in both.
class Factory {
 public:
  virtual ~Factory() = default;
  virtual IOStreams streams() = 0;
  virtual workflow::Leaves& leaves() = 0;
  // Ctrl-C: set by the process's interrupt handler (null: never).
  virtual core::CancelToken* cancel() = 0;
  // The program's path (its built-in templates and companion programs are beside it).
  virtual std::string executable() = 0;
  // Runs `path` in this process's place (same PID and streams; `emulator start` hands over to
  // tputrain-emulator): the process's never returns but with why it could not; a test's runs it
  // to its end and returns its exit code, its output in the test's streams.
  virtual core::Result<int> Exec(const std::string& path, const std::vector<std::string>& args,
                                 const core::Env& env) = 0;
};

// What a command's Run function receives: the parsed global flags, the environment snapshot,
// the streams and what they are connected to. Commands set `outcome`; Main turns it into the
// exit code.
struct Context {
  core::Env env;
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
  bool stdin_is_tty = false;
  bool stdout_is_tty = false;
  bool stderr_is_tty = false;
  int stdout_columns = 0;  // the terminal's width when stdout is one (0: unknown)
  int stderr_columns = 0;  // the same for stderr
  core::CancelToken* cancel = nullptr;
  // Where the command's phases are timed (TPUTRAIN_PHASES=1); null: nowhere.
  core::Timeline* timeline = nullptr;
  GlobalOptions global;
  std::optional<core::Result<int>> outcome;
  // Every sink (errors, progress, --verbose, --dry-run) prints through it; whatever obtains a
  // credential holds it here, so an echoed secret is never printed. It knows the Ray token's
  // metadata key (tputrain-ray-token) as a secret field from the start.
  core::Redactor redactor;

  // Progress and messages for people, on stderr, shaped by --quiet/--verbose and the TTY.
  core::Reporter& reporter();

  // project, location, cluster, bucket, ray_address: flags > environment > tputrain.yaml >
  // gcloud config. Resolved on first use and kept.
  core::Result<config::Settings> settings();

  // The composition root (workflow::Root) over the factory's leaves: every transport,
  // credential, clock and ledger store a command uses. Built on first use, after flags are
  // parsed, and kept for the process.
  workflow::Root& stack();
  Factory& factory() { return factory_; }

  Context(core::Env environment, Factory& factory);
  // Streams of the caller's, on the process's leaves (what prints and reads no network needs).
  Context(core::Env environment, std::ostream& out_stream, std::ostream& err_stream);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

 private:
  Context(core::Env environment, std::unique_ptr<Factory>&& owned);
  Context(core::Env environment, Factory& factory, std::unique_ptr<Factory>&& owned);

  std::unique_ptr<Factory> owned_factory_;
  Factory& factory_;
  std::unique_ptr<core::Reporter> reporter_;
  std::unique_ptr<workflow::Root> stack_;
  std::optional<core::Result<config::Settings>> settings_;
};

}  // namespace tputrain::cli
