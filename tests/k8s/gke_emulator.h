#pragma once

#include <memory>
#include <string>

#include "k8s/apiserver_fixture.h"
#include "testing/free_port.h"
#include "testing/scoped_process.h"
#include "tputrain/http/curl_transport.h"

namespace tputrain::testing {

// `tputrain emulator start` handing out the test API server as its clusters' endpoint and CA.
class GkeEmulator {
 public:
  GkeEmulator(const ApiServer& server, const std::string& dir)
      : base_url_("http://127.0.0.1:" + std::to_string(FreeLoopbackPort())) {
    WriteTextFile(dir + "/cluster-ca.pem", server.ca_pem());
    process_ = std::make_unique<ScopedProcess>(ProcessOptions{
        {TputrainBinary(), "emulator", "start", "--port", base_url_.substr(base_url_.rfind(':') + 1), "--op-latency",
         "100ms", "--cluster-endpoint", server.server(), "--cluster-ca-file", dir + "/cluster-ca.pem"}});
    ready_ = WaitFor(
        [&] {
          http::Request request;
          request.url = base_url_ + "/_emulator/state";
          auto response = transport_.Send(request);
          return response && response->status == 200;
        },
        std::chrono::seconds(20));
  }
  bool ready() const { return ready_; }
  const std::string& url() const { return base_url_; }

 private:
  std::string base_url_;
  http::CurlTransport transport_;
  std::unique_ptr<ScopedProcess> process_;
  bool ready_ = false;
};

}  // namespace tputrain::testing
