#pragma once

// Every place tputrain parses a JSON or YAML text it did not write, reached the way the text
// reaches it: a server's answer through a scripted transport, a file on disk, a program's output.
// bounded_input_test feeds them the issue's cases, parsers_fuzz_test random ones.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api_call.h"
#include "auth/oauth.h"
#include "testing/fake_transport.h"
#include "tputrain/core/env.h"
#include "tputrain/gcp/auth/adc.h"
#include "tputrain/gcp/auth/metadata_server.h"
#include "tputrain/gcp/error_from_http.h"
#include "tputrain/k8s/client.h"
#include "tputrain/k8s/credentials.h"
#include "tputrain/k8s/discovery.h"
#include "tputrain/k8s/kubeconfig.h"
#include "tputrain/k8s/manifest.h"
#include "tputrain/k8s/watch.h"
#include "tputrain/ray/jobs_client.h"
#include "tputrain/serving/engine.h"
#include "tputrain/serving/saxml.h"
#include "tputrain/state/ledger.h"
#include "tputrain/yaml/bounded.h"

namespace tputrain::testing {

struct ClientParser {
  std::string name;
  // A text it takes (a JSON object or a YAML map); empty for the readers of error bodies, which
  // answer an error whatever they read.
  std::string sample;
  // Parses `text` as it would reach tputrain; true when a value came out of it.
  std::function<bool(const std::string& text)> accepts;
  bool yaml = false;    // reads YAML (else JSON)
  bool spawns = false;  // starts a process per call: the fuzz test gives it fewer texts
  // Takes texts past 64 MiB (a job's whole log, read again at each poll: 256 MiB).
  bool takes_large = false;
};

// A directory for the parsers' files, removed with the object.
class ParserDir {
 public:
  ParserDir() {
    char pattern[] = "/tmp/tputrain-parsers-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~ParserDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ParserDir(const ParserDir&) = delete;
  ParserDir& operator=(const ParserDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary | std::ios::trunc) << text;
    return (path_ / name).string();
  }

 private:
  std::filesystem::path path_;
};

// A transport whose every answer is `status` with `body`.
inline std::shared_ptr<FakeTransport> Answering(int status, const std::string& body, http::Headers headers = {}) {
  auto transport = std::make_shared<FakeTransport>();
  headers.emplace_back("Content-Type", "application/json");
  for (const char* method : {"GET", "POST"}) {  // each rule holds its copy of the body
    transport->On(method, "", {http::Response{status, headers, body}});
  }
  return transport;
}

inline std::vector<ClientParser> ClientParsers(const ParserDir& dir) {
  using Json = nlohmann::json;
  std::vector<ClientParser> parsers;
  auto add = [&](std::string name, std::string sample, std::function<bool(const std::string&)> accepts) {
    parsers.push_back({std::move(name), std::move(sample), std::move(accepts)});
  };
  add("a Google API's answer (gcp::CallJson)", R"({"name": "n", "state": "READY"})", [](const std::string& text) {
    auto transport = Answering(200, text);
    auto request = gcp::JsonRequest("GET", "https://tpu.googleapis.com/v2/projects/p/locations/z/nodes/n");
    return gcp::CallJson(*transport, request, "tpu.projects.locations.nodes.get").has_value();
  });
  add("a Google API's error (gcp::ErrorFromHttp)", "", [](const std::string& text) {
    gcp::ErrorFromHttp(http::Response{400, {}, text}, "tpu.projects.locations.nodes.get");
    return false;  // an error either way: only that it returns
  });
  add("an OAuth token endpoint's answer", R"({"access_token": "ya29.a", "expires_in": 3600})",
      [](const std::string& text) {
        auto transport = Answering(200, text);
        FakeClock clock;
        return gcp::auth::ExchangeToken(*transport, clock, "https://oauth2.googleapis.com/token", "grant_type=x", "ADC")
            .has_value();
      });
  add("the metadata server's token", R"({"access_token": "ya29.a", "expires_in": 3600})", [](const std::string& text) {
    auto transport = Answering(200, text, {{"Metadata-Flavor", "Google"}});
    FakeClock clock;
    core::Env env(std::map<std::string, std::string>{{"GCE_METADATA_HOST", "169.254.169.254"}});
    return gcp::auth::MetadataServerSource(env, *transport, clock)->Token().has_value();
  });
  add("an ADC credentials file",
      R"({"type": "authorized_user", "client_id": "c", "client_secret": "s", "refresh_token": "r"})",
      [&dir](const std::string& text) {
        auto transport = Answering(200, R"({"access_token": "ya29.x", "expires_in": 3600})");
        FakeClock clock;
        return gcp::auth::CredentialsFromFile(dir.Write("adc.json", text), *transport, clock).has_value();
      });
  add("the Kubernetes API server's answer (k8s::Client::GetJson)", R"({"kind": "Pod", "metadata": {"name": "p"}})",
      [](const std::string& text) {
        auto transport = Answering(200, text);
        k8s::Client client(*transport, "https://k8s.test");
        return client.GetJson("/api/v1/namespaces/default/pods/p", "Pod p").has_value();
      });
  add("a Kubernetes Status (k8s::ErrorFromStatus)", "", [](const std::string& text) {
    k8s::ErrorFromStatus(422, text, "RayCluster r");
    return false;  // an error either way: only that it returns
  });
  add("Kubernetes discovery (/api, /apis)",
      R"({"versions": ["v1"], "groups": [], "resources": [{"name": "pods", "kind": "Pod", "namespaced": true}]})",
      [](const std::string& text) {
        auto transport = Answering(200, text);
        k8s::Client client(*transport, "https://k8s.test");
        k8s::Discovery discovery(client);
        return discovery.Lookup("v1", "Pod").has_value();
      });
  add("a Kubernetes watch (list, then events)",
      R"({"metadata": {"resourceVersion": "1"}, "items": [{"metadata": {"name": "p"}}]})", [](const std::string& text) {
        // The list and one stream of events answer `text`; then the connection fails, so the watch
        // pauses (on the fake clock) until its timeout.
        FakeTransport transport;
        transport.On("GET", "watch=1",
                     {http::Response{200, {}, text + "\n" + text + "\n"},
                      core::Fail(core::Error::Make(core::ErrorKind::kUnavailable, "connection refused"))});
        transport.On("GET", "", {http::Response{200, {}, text}});
        k8s::Client client(transport, "https://k8s.test");
        FakeClock clock;
        Json seen;
        auto outcome =
            k8s::WatchObject(client, "/api/v1/namespaces/default/pods", "p",
                             [&](const Json* object) {
                               if (object != nullptr) seen = *object;
                               return object != nullptr ? k8s::Verdict::Done() : k8s::Verdict::Waiting("absent");
                             },
                             {.timeout = std::chrono::seconds(1)}, {clock, clock});
        return outcome.has_value() && !seen.is_null();
      });
  add("the Ray dashboard's Jobs API (job status)",
      R"({"submission_id": "raysubmit_x", "status": "RUNNING", "entrypoint": "python x.py"})",
      [](const std::string& text) {
        auto transport = Answering(200, text);
        FakeClock clock;
        ray::JobsClient client(*transport, clock, {.address = "http://127.0.0.1:8265"});
        return client.Get("raysubmit_x").has_value();
      });
  add("the Ray dashboard's Jobs API (job log)", R"({"logs": "step 1\n"})", [](const std::string& text) {
    auto transport = Answering(200, text);
    FakeClock clock;
    ray::JobsClient client(*transport, clock, {.address = "http://127.0.0.1:8265"});
    return client.Logs("raysubmit_x").has_value();
  });
  parsers.back().takes_large = true;
  for (auto kind : {serving::EngineKind::kJetStream, serving::EngineKind::kSaxml}) {
    const std::string engine = kind == serving::EngineKind::kJetStream ? "jetstream-http" : "sax-http";
    add(engine + "'s answer, health and error",
        kind == serving::EngineKind::kJetStream ? R"({"response": "hi"})" : R"({"generate_response": [["hi", -0.5]]})",
        [kind](const std::string& text) {
          auto parser = serving::MakeEngine(kind);
          const http::Response response{200, {}, text};
          parser->IsHealthy(response);
          parser->ErrorFrom(http::Response{500, {}, text});
          return parser->ParseGenerated(response).has_value();
        });
    add(engine + "'s streamed tokens", kind == serving::EngineKind::kJetStream ? R"({"text": "hi"})" : "",
        [kind](const std::string& text) {
          auto decoder = serving::MakeEngine(kind)->NewStreamDecoder();  // none for sax-http: it answers whole
          return decoder != nullptr && decoder->Feed(text).has_value();
        });
  }
  add("vLLM's answer, usage, served model, health and error",
      R"({"choices": [{"index": 0, "text": "hi"}], "usage": {"completion_tokens": 1}, "data": [{"id": "m"}]})",
      [](const std::string& text) {
        auto parser = serving::MakeEngine(serving::EngineKind::kVllm);
        const http::Response response{200, {}, text};
        parser->IsHealthy(response);
        parser->UsageOf(response);
        parser->ErrorFrom(http::Response{404, {}, text});
        return parser->ParseGenerated(response).has_value() && parser->ParseServedModel(response).has_value();
      });
  add("vLLM's server-sent chunks", R"({"choices": [{"index": 0, "delta": {"content": "hi"}}]})",
      [](const std::string& text) {
        auto decoder = serving::MakeEngine(serving::EngineKind::kVllm)->NewStreamDecoder();
        return decoder->Feed("data: " + text + "\n\ndata: [DONE]\n\n").has_value() && decoder->Finish().has_value();
      });
  add("sax-http's listcell and errors", R"({"model": "/sax/test/m", "max_replicas": 1, "active_replicas": 1})",
      [](const std::string& text) {
        serving::SaxHttpError(http::Response{400, {}, text});
        return serving::ParseListCell(http::Response{200, {}, text}).has_value();
      });
  add("a run ledger file",
      R"({"version": 1, "run_id": "fuzzed-run", "created_at": "2026-01-01T00:00:00Z", "entries": []})",
      [&dir](const std::string& text) {
        dir.Write("fuzzed-run.json", text);
        FakeClock clock;
        return state::LedgerStore(dir.path().string(), clock).Load("fuzzed-run").has_value();
      });
  parsers.push_back({"a kubectl exec credential plugin's output",
                     R"({"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential", )"
                     R"("status": {"token": "t"}})",
                     [&dir](const std::string& text) {
                       const std::string output = dir.Write("exec-output", text);
                       const std::string plugin = dir.Write("plugin.sh", "#!/bin/sh\nexec cat '" + output + "'\n");
                       std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
                       return k8s::RunExecPlugin({.command = plugin}, {}, core::Env()).has_value();
                     },
                     false, true});
  parsers.push_back({"a kubeconfig",
                     "clusters:\n- name: c\n  cluster:\n    server: https://k8s.test\nusers:\n- name: u\n  user:\n"
                     "    token: t\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                     "current-context: x\n",
                     [&dir](const std::string& text) {
                       return k8s::ClusterAccessFromKubeconfigText(text, dir.path().string(), {}).has_value();
                     },
                     true});
  parsers.push_back({"Kubernetes manifests (-f)", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
                     [](const std::string& text) { return k8s::ParseManifests(text, "-f").has_value(); }, true});
  parsers.push_back({"YAML documents (values, tputrain.yaml)", "a: 1\nb: [x, y]\n",
                     [](const std::string& text) { return yaml::LoadAll(text, "--values").has_value(); }, true});
  return parsers;
}

}  // namespace tputrain::testing
