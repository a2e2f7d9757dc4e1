#include "tputrain/emulator_server/server.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>

#include <httplib.h>
#include <malloc.h>

#include "access_token_file.h"
#include "httplib_request.h"
#include "tpu_host_serving.h"
#include "tputrain/core/clock.h"
#include "tputrain/core/duration.h"
#include "tputrain/core/file.h"
#include "tputrain/core/json.h"
#include "tputrain/emulator/emulator.h"
#include "tputrain/http/transport.h"

namespace tputrain::emulator {
namespace {

void ToHttplib(const ApiResponse& response, httplib::Response& out) {
  if (response.drop_connection) {
    // Announce a body and then fail to produce it: httplib closes the connection mid-reply.
    out.set_content_provider(1, "application/json", [](size_t, size_t, httplib::DataSink&) { return false; });
    return;
  }
  out.status = response.status;
  for (const auto& [name, value] : response.headers) out.set_header(name, value);
  if (!response.body.empty() || !response.content_type.empty()) {
    out.set_content(response.body, response.content_type.empty() ? "application/json" : response.content_type.c_str());
  }
}

}  // namespace

std::vector<std::string> EndpointOverrideLines(const std::string& base_url) {
  std::vector<std::string> lines;
  for (const char* api : {"CONTAINER", "TPU", "IAM", "CLOUDRESOURCEMANAGER", "SERVICEUSAGE", "ARTIFACTREGISTRY",
                          "CLOUDBUILD", "CLOUDBILLING"}) {
    lines.push_back(std::string("export CLOUDSDK_API_ENDPOINT_OVERRIDES_") + api + "=" + base_url + "/");
  }
  lines.push_back("export CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE=" + base_url + "/storage/v1/");
  lines.push_back("export CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=" + base_url + "/compute/v1/");
  return lines;
}

core::Result<int> RunEmulator(const StartOptions& options, const core::CancelToken& cancel, std::ostream& out,
                              std::ostream& err) {
  auto config = MakeConfig(options);
  if (!config) return core::Fail(config.error());
  // Bodies of megabytes come and go (uploads, refused ones read to their end). Taken from glibc's
  // heaps, freed they stay with the thread that read them: a few refused uploads left the
  // emulator at 600 MB. Mapped (past a fixed 1 MiB threshold) they go back to the system at once.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  core::SystemClock clock;
  auto emulator = Emulator::Create(std::move(*config), clock);
  if (!emulator) return core::Fail(emulator.error());

  // The hosts come first: without root or with another emulator's hosts running, nothing listens.
  std::unique_ptr<TpuHostServing> tpu_hosts;
  if ((*emulator)->config().tpu_hosts == TpuHostMode::kNetns) {
    auto started = TpuHostServing::Start(**emulator, (*emulator)->config());
    if (!started) return core::Fail(started.error());
    tpu_hosts = std::move(*started);
  }

  auto token_file = AccessTokenFile::Create();
  if (!token_file) return core::Fail(token_file.error());

  httplib::Server server;
  // Parallel gcloud processes each hold keep-alive connections; give them room.
  server.new_task_queue = [] { return new httplib::ThreadPool(32); };
  server.set_tcp_nodelay(true);  // replies go out in two writes; Nagle would hold the second for 40 ms
  ListenAlone(server);
  RouteBounded(server, [&](ApiRequest api, const httplib::Request& request, httplib::Response& response) {
    if (tpu_hosts && api.method == "POST" && api.path == "/_emulator/iap-relay/reauthenticate") {
      // The relay belongs to the hosts, not to the API world.
      nlohmann::json reply = {{"sessions", tpu_hosts->RequestReauthentication()}};
      response.set_content(reply.dump(), "application/json");
      return;
    }
    ApiResponse reply = (*emulator)->Handle(api);
    // The emulator answers Range itself (206 with the part cut, 416); httplib would cut the part
    // again, and would gzip object bytes that Cloud Storage serves as stored. The request object
    // is httplib's own, per request, and not const: clearing what drives both is safe.
    auto& mutable_request = const_cast<httplib::Request&>(request);
    mutable_request.ranges.clear();
    if (reply.media) mutable_request.headers.erase("Accept-Encoding");
    ToHttplib(reply, response);
  });
  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port <= 0) return core::Fail(core::Error::Usage("--host: cannot listen on " + options.host));
  } else if (!server.bind_to_port(options.host, port)) {
    return core::Fail(
        core::Error::Usage("--port: cannot listen on " + options.host + ":" + std::to_string(port) + " (in use?)"));
  }
  std::thread listener([&] { server.listen_after_bind(); });

  std::string host = options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
  std::string base_url = "http://" + host + ":" + std::to_string(port);
  if (!http::IsLoopbackHost(options.host)) {
    err << "WARNING: the emulator accepts any token; listening on " << options.host
        << " exposes it beyond this machine\n";
  }
  // One write, so that whoever waits for a line of the file this goes to finds all of them.
  std::ostringstream lines;
  lines << "# tputrain emulator listening on " << base_url << " (SIGINT or SIGTERM stops it)\n"
        << "export TPUTRAIN_EMULATOR_URL=" << base_url << "\n";
  for (const auto& line : EndpointOverrideLines(base_url)) lines << line << "\n";
  if (tpu_hosts) {
    for (const auto& line : tpu_hosts->ExportLines()) lines << line << "\n";
  }
  lines << (*token_file)->ExportLine() << "\n";
  out << lines.str();
  out.flush();

  core::RealSleeper sleeper(&cancel);
  while (!cancel.cancelled()) sleeper.Sleep(std::chrono::hours(1));
  server.stop();
  listener.join();
  tpu_hosts.reset();  // ends every host and removes their network
  err << "emulator stopped\n";
  return 0;
}

}  // namespace tputrain::emulator
