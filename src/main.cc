#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string_view>

#include "tputrain/cli/main.h"
#include "tputrain/cli/process_factory.h"
#include "tputrain/core/cancel.h"
#include "tputrain/core/timeline.h"
#include "tputrain/http/curl_preload.h"

namespace {

int Run(int argc, char** argv, tputrain::core::CancelToken& cancel, tputrain::core::Timeline* timeline) {
  // A command that will send a request loads libcurl beside its own set-up, from here.
  std::optional<tputrain::http::CurlPreload> preload;
  if (tputrain::cli::MaySendRequests(argc, argv)) preload.emplace(timeline);
  tputrain::cli::ProcessFactory factory(&cancel);
  tputrain::cli::Context context(tputrain::core::Env::FromProcess(), factory);
  context.timeline = timeline;
  return tputrain::cli::Main(argc, argv, context);
}

}  // namespace

int main(int argc, char** argv) {
  // TPUTRAIN_PHASES=1: each phase of the command on stderr at exit (bench/phases.sh reads them).
  const char* phases = std::getenv("TPUTRAIN_PHASES");
  std::optional<tputrain::core::Timeline> timeline;
  if (phases != nullptr && phases[0] != '\0' && std::string_view(phases) != "0") timeline.emplace();
  tputrain::core::CancelToken cancel;
  tputrain::core::InstallInterruptHandler(cancel);
  int code = Run(argc, argv, cancel, timeline ? &*timeline : nullptr);
  std::cout.flush();
  if (timeline) timeline->Print(std::cerr);
  // Everything of the command is closed by now (Run's scope has ended): what a return would
  // still do is tear down libraries this process is about to lose anyway (OpenSSL's and
  // libcurl's at-exit clean-ups, static destructors), a measured part of a short command's time.
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}
