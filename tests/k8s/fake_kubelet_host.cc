#include "k8s/fake_kubelet_host.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "k8s/k8s_test_util.h"

namespace tputrain::testing {

FakeKubeletHost::FakeKubeletHost() : host_("lg", 252) {
  std::string pattern = (std::filesystem::temp_directory_path() / "tputrain-kubelet-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
  try {
    ProcessOptions cert;
    cert.argv = {"openssl",  "req",
                 "-x509",    "-newkey",
                 "rsa:2048", "-nodes",
                 "-keyout",  dir_ + "/kubelet.key",
                 "-out",     dir_ + "/kubelet.crt",
                 "-days",    "1",
                 "-subj",    "/CN=fake-kubelet",
                 "-addext",  "subjectAltName=IP:" + ip()};
    auto made = RunProcess(cert, std::chrono::seconds(60));
    if (made.exit_code != 0) throw std::runtime_error("openssl failed: " + made.err);
    ProcessOptions serve;
    serve.argv = {"python3",
                  std::string(TPUTRAIN_SOURCE_DIR) + "/tests/k8s/fake_kubelet.py",
                  ip(),
                  std::to_string(kPort),
                  dir_ + "/kubelet.crt",
                  dir_ + "/kubelet.key",
                  dir_};
    kubelet_ = host_.Start(serve);
    if (!WaitFor([&] { return std::filesystem::exists(dir_ + "/ready") || !kubelet_->running(); },
                 std::chrono::seconds(30)) ||
        !std::filesystem::exists(dir_ + "/ready")) {
      throw std::runtime_error("the fake kubelet did not start: " + kubelet_->ReadErr());
    }
  } catch (...) {
    Teardown();
    throw;
  }
}

FakeKubeletHost::~FakeKubeletHost() { Teardown(); }

void FakeKubeletHost::AddNode(k8s::Client& admin, const std::string& name) const {
  CreateObject(admin, "/api/v1/nodes", {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}});
  // What the kubelet reports about itself; the API server dials the InternalIP and this port.
  WriteStatus(admin, "/api/v1/nodes/" + name,
              {{"addresses", {{{"type", "InternalIP"}, {"address", ip()}}}},
               {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", kPort}}}}}});
}

void FakeKubeletHost::OpenGate(const std::string& pod) const { WriteTextFile(dir_ + "/" + pod, "open\n"); }

std::string FakeKubeletHost::Requests() const {
  return std::filesystem::exists(dir_ + "/requests.log") ? ReadTextFile(dir_ + "/requests.log") : "";
}

void FakeKubeletHost::Teardown() {
  if (kubelet_) kubelet_->Stop();
  kubelet_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace tputrain::testing
