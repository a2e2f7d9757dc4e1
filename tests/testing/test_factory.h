#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "testing/fake_clock.h"
#include "testing/fake_transport.h"
#include "testing/scoped_process.h"
#include "tputrain/cli/context.h"
#include "tputrain/cli/main.h"
#include "tputrain/core/cancel.h"
#include "tputrain/http/curl_transport.h"
#include "tputrain/workflow/root.h"

namespace tputrain::testing {

// The leaves of a command run in-process: every chain the composition root builds ends in one FakeTransport
// (through its own forwarding layer, since a chain owns its leaf, which keeps the real leaf's URL
// rule), time is the FakeClock, and a WebSocket connect fails as a refused connection would.
class TestLeaves final : public workflow::Leaves {
 public:
  TestLeaves(FakeTransport& transport, FakeClock& clock) : transport_(transport), clock_(clock) {}
  core::Clock& clock() override { return clock_; }
  core::Sleeper& sleeper() override { return clock_; }
  core::Sleeper& uninterrupted_sleeper() override { return clock_; }
  std::unique_ptr<http::Transport> Transport(http::CurlOptions options) override {
    auto forward = std::make_unique<Forward>(transport_, options.plain_http_host);
    options_.push_back(std::move(options));
    return forward;
  }
  std::unique_ptr<http::WebSocketConnector> WebSocket(http::WebSocketOptions) override {
    return std::make_unique<NoWebSocket>();
  }
  // The options each chain asked its leaf for (a cluster's CA, the metadata server's host).
  const std::vector<http::CurlOptions>& curl_options() const { return options_; }

 private:
  class Forward final : public http::Transport {
   public:
    Forward(http::Transport& to, std::string plain_http_host) : to_(to), plain_http_host_(std::move(plain_http_host)) {}
    // The URL rule is the real leaf's (CurlTransport's): plain http to loopback only, refused
    // before anything is sent.
    core::Result<http::Response> Send(const http::Request& request) override {
      if (auto allowed = http::CheckUrlAllowed(request.url, plain_http_host_); !allowed)
        return core::Fail(allowed.error());
      return to_.Send(request);
    }
    core::Result<http::Response> Stream(const http::Request& request, const http::ChunkHandler& on_chunk) override {
      if (auto allowed = http::CheckUrlAllowed(request.url, plain_http_host_); !allowed)
        return core::Fail(allowed.error());
      return to_.Stream(request, on_chunk);
    }

   private:
    http::Transport& to_;
    std::string plain_http_host_;
  };
  class NoWebSocket final : public http::WebSocketConnector {
   public:
    core::Result<std::unique_ptr<http::WebSocketConnection>> Connect(const std::string& url,
                                                                     const http::Headers&) override {
      return core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "no WebSocket in this test: " + url));
    }
  };

  FakeTransport& transport_;
  FakeClock& clock_;
  std::vector<http::CurlOptions> options_;
};

// A command's whole run in this process (kubectl's TestFactory is the model): string streams for
// stdin, stdout and stderr, the fake transport under every API the command calls (Google's,
// a cluster's, a Ray dashboard's), the fake clock for every wait, and a Ctrl-C token the test
// may set. Flags, the composition root's decorators (dry run, credentials, retries, redaction)
// and the printing are the product's own.
class TestFactory final : public cli::Factory {
 public:
  FakeTransport transport;
  FakeClock clock;
  core::CancelToken cancel_token;
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  bool in_is_tty = false;
  bool out_is_tty = false;
  bool err_is_tty = false;

  TestFactory() : leaves_(transport, clock) {}
  cli::IOStreams streams() override { return {in, out, err, in_is_tty, out_is_tty, err_is_tty, 0}; }
  workflow::Leaves& leaves() override { return leaves_; }
  core::CancelToken* cancel() override { return &cancel_token; }
  // The built tputrain's path: its templates are beside it, as they are for the spawned binary.
  std::string executable() override { return TputrainBinary(); }
  // Nothing replaces the test process: the program runs as its child, to its end, with the
  // command's environment; its output lands in this factory's streams and its exit code is the
  // command's, as exec would make them.
  core::Result<int> Exec(const std::string& path, const std::vector<std::string>& args, const core::Env& env) override {
    execs.push_back({path, args});
    ProcessOptions options{{path}};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    const core::Env test_env = core::Env::FromProcess();  // kept: vars() refers into it
    for (const auto& [name, value] : test_env.vars()) options.env[name] = std::nullopt;
    for (const auto& [name, value] : env.vars()) options.env[name] = value;
    options.stdin_text = in.str();
    auto ran = RunProcess(options);
    out << ran.out;
    err << ran.err;
    return ran.exit_code;
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> execs;
  TestLeaves& test_leaves() { return leaves_; }

 private:
  TestLeaves leaves_;
};

// `tputrain ARGS...` run in this process on `factory` (script its transport first), taking the
// same options as RunProcess: argv[0] is the program (its path is not read), `env` is set on top
// of the test's own environment (std::nullopt unsets), `stdin_text` is stdin. A command test
// moves in-process by calling this instead of RunProcess; what it asserts stays as it was.
inline ProcessResult RunInProcess(TestFactory& factory, const ProcessOptions& options) {
  core::Env env = core::Env::FromProcess();
  for (const auto& [name, value] : options.env) {
    if (value) {
      env.Set(name, *value);
    } else {
      env.Unset(name);
    }
  }
  factory.in.str(options.stdin_text);
  factory.in.clear();
  factory.out.str("");
  factory.err.str("");
  std::vector<const char*> argv;
  for (const auto& arg : options.argv) argv.push_back(arg.c_str());
  // A working directory is the process's: taken for the run and given back (Catch2 runs one test
  // at a time).
  std::optional<std::filesystem::path> previous;
  if (!options.working_dir.empty()) {
    previous = std::filesystem::current_path();
    std::filesystem::current_path(options.working_dir);
  }
  ProcessResult result;
  {
    cli::Context context(std::move(env), factory);
    result.exit_code = cli::Main(static_cast<int>(argv.size()), argv.data(), context);
  }
  if (previous) std::filesystem::current_path(*previous);
  result.out = factory.out.str();
  result.err = factory.err.str();
  return result;
}

inline ProcessResult RunInProcess(const ProcessOptions& options) {
  TestFactory factory;
  return RunInProcess(factory, options);
}

}  // namespace tputrain::testing
