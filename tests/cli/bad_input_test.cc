// Every family of input a user types — names, numbers, durations, URLs, files, texts, KEY=VALUE flags,
// environment variables — refused the same way: one line on stderr that starts by naming the flag,
// argument or variable, nothing on stdout, exit 2 (4 for credentials), and nothing sent: the APIs
// are a closed port and there are no credentials, so a request would fail differently.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>

#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::RunInProcess;
using tputrain::testing::TputrainBinary;

namespace {

struct BadInput {
  const char* family;
  std::vector<std::string> args;
  std::string names;  // the error line starts with "ERROR: <names>:"
  std::map<std::string, std::string> env = {};
  int exit_code = 2;
};

// A file holding `content`, written once into a directory of the test's own, for the families
// whose bad input is what a file holds.
std::string FileHolding(const std::string& name, const std::string& content) {
  static const std::string dir = [] {
    char path[] = "/tmp/tputrain-bad-input-XXXXXX";
    return std::string(mkdtemp(path) != nullptr ? path : "/nonexistent");
  }();
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

const std::string kHfToken = "hf_" + std::string(34, 'x');

const std::vector<BadInput>& Cases() {
  static const std::vector<BadInput> cases = {
      // names
      {"name", {"cluster", "create", "Bad_Name"}, "NAME"},
      {"name", {"nodepool", "delete", "x/../../../victim", "--cluster", "ray-tpu", "--yes"}, "NAME"},
      {"name", {"nodepool", "create", "pool", "--cluster", ".."}, "--cluster"},
      {"name", {"tpu-vm", "describe", "UPPER"}, "NAME"},
      {"name", {"bucket", "create", "gs://google-ckpt"}, "NAME"},
      {"name", {"bucket", "delete", "a/b", "--yes"}, "NAME"},
      {"name", {"iam", "service-account", "create", "abc"}, "NAME"},
      {"name", {"iam", "bind-workload-identity", "--ksa", "a/b/c", "--bucket", "ckpt", "--role", "roles/x"}, "--ksa"},
      {"name",
       {"iam", "bind-workload-identity", "--ksa", "Default/x", "--bucket", "ckpt", "--role", "roles/x"},
       "--ksa"},
      {"name",
       {"iam", "bind-workload-identity", "--ksa", "default/x", "--gsa", "x/../y@p.iam", "--role", "roles/x"},
       "--gsa"},
      {"name",
       {"iam", "bind-workload-identity", "--ksa", "default/x", "--bucket", "ckpt", "--role", "roles/../x"},
       "--role"},
      {"name", {"cleanup", "--run", "../x", "--yes"}, "--run"},
      {"name",
       {"job", "submit", "--address", "http://127.0.0.1:9", "--submission-id", "a/b", "--", "echo"},
       "--submission-id"},
      {"name", {"cluster", "list", "--project", "Bad Project!"}, "--project"},
      {"name", {"cluster", "list", "--location", "US EAST"}, "--location"},
      {"name", {"image", "build", "/tmp", "--tag", "gcr.io/p/image:v1"}, "--tag"},
      {"name",
       {"image", "build", "/tmp", "--tag", "us-west1-docker.pkg.dev/p/repo/image", "--project", "p", "--location",
        "us-east5-b"},
       "--tag"},
      {"name", {"serve", "up", "--model", "llama3.1-405b", "--tpu-type", "v9z-3"}, "--tpu-type"},
      {"name", {"serve", "up", "--model", "llama3-8b"}, "--model"},
      {"name", {"serve", "up", "--engine", "vllm", "--model", "org/m;reboot", "--tpu-type", "v6e-8"}, "--model"},
      {"name", {"serve", "up", "--engine", "vllm", "--model", "org/m\xff", "--tpu-type", "v6e-8"}, "--model"},
      {"name", {"serve", "up", "--engine", "vllm", "--model", "org/model"}, "--tpu-type"},
      {"capacity", {"serve", "up", "--model", "llama3.1-405b", "--capacity", "reservation"}, "--capacity reservation"},
      {"capacity",
       {"serve", "up", "--engine", "vllm", "--model", "llama3-8b", "--spot", "--capacity", "flex-start"},
       "--spot"},
      {"file",
       {"serve", "up", "--engine", "vllm", "--model", "org/m", "--tpu-type", "v6e-8", "--hf-token-file",
        "/nonexistent/t", "--dry-run"},
       "--hf-token-file"},
      {"file",
       {"serve", "up", "--engine", "vllm", "--model", "org/m", "--tpu-type", "v6e-8", "--hf-token-file", "/dev/null",
        "--dry-run"},
       "--hf-token-file"},
      {"engine", {"serve", "up", "--model", "llama3.1-405b", "--hf-token-file", "/dev/null"}, "--hf-token-file"},
      {"engine",
       {"serve", "up", "--engine", "saxml", "--model", "saxml-175b-test", "--hf-token-file", "/dev/null"},
       "--hf-token-file"},
      {"engine", {"serve", "up", "--engine", "vllm", "--model", "llama3-8b", "--bucket", "my-bucket"}, "--bucket"},
      {"engine", {"serve", "down", "--engine", "vllm", "--model", "llama3-8b", "--set", "A=1", "--yes"}, "--set"},
      {"number",
       {"serve", "up", "--engine", "vllm", "--model", "org/m", "--tpu-type", "v6e-16", "--set",
        "TENSOR_PARALLEL_SIZE=8"},
       "--set TENSOR_PARALLEL_SIZE"},
      {"number", {"serve", "generate", "--prompt", "hi", "--max-tokens", "1e3"}, "--max-tokens"},
      {"number", {"serve", "generate", "--engine", "vllm", "--prompt", "hi", "--temperature", "hot"}, "--temperature"},
      // texts sent as JSON: well-formed UTF-8, and a chat message as ROLE:TEXT
      {"text", {"serve", "generate", "--prompt", "caf\xe9"}, "--prompt"},
      {"text", {"serve", "generate", "--engine", "vllm", "--message", "robot:hi"}, "--message"},
      {"text", {"serve", "generate", "--engine", "vllm", "--message", "user:\xc3"}, "--message"},
      {"text", {"serve", "generate", "--engine", "vllm", "--prompt", "hi", "--model", "m\x1b[2J"}, "--model"},
      // empty values (an unset shell variable)
      {"empty", {"cluster", "create", "c", "--tpu-type", ""}, "--tpu-type"},
      {"empty", {"cleanup", "--run", "", "--yes"}, "--run"},
      {"empty", {"nodepool", "create", "", "--cluster", "c"}, "name"},
      // numbers
      {"number",
       {"image", "build", "/tmp", "--tag", "us-docker.pkg.dev/p/repo/image", "--project", "p", "--max-context-size",
        "1.5GiB"},
       "--max-context-size"},
      {"number", {"cluster", "create", "c", "--num-nodes", "-3"}, "--num-nodes"},
      {"number", {"nodepool", "create", "p", "--cluster", "c", "--num-nodes", "abc"}, "--num-nodes"},
      {"number",
       {"nodepool", "create", "p", "--cluster", "c", "--machine-type", "m1-ultramem-160", "--disk-size", "3000.5"},
       "--disk-size"},
      {"number",
       {"nodepool", "create", "p", "--cluster", "c", "--machine-type", "m1-ultramem-160", "--disk-size", "5"},
       "--disk-size"},
      {"number",
       {"nodepool", "create", "p", "--cluster", "c", "--machine-type", "m1-ultramem-160", "--disk-size", "70000"},
       "--disk-size"},
      {"number",
       {"nodepool", "create", "p", "--cluster", "c", "--machine-type", "m1-ultramem-160", "--tpu-type", "v6e-16"},
       "--machine-type"},
      {"number", {"cluster", "create", "c", "--tpu-type", "v6e-16", "--num-slices", "0"}, "--num-slices"},
      {"number", {"submit", "--model", "maxtext-cpu-smoke", "--steps", "99999999999999999999"}, "--steps"},
      {"number", {"plan", "--model", "llama3-8b", "--accelerator", "v6e", "--slices", "65"}, "--slices"},
      {"number", {"plan", "--model", "llama3-8b", "--location", "us-east5", "--hours", "-1"}, "--hours"},
      {"number", {"plan", "--model", "llama3-8b", "--location", "us-east5", "--hours", "nan"}, "--hours"},
      {"name", {"plan", "--model", "llama3-8b", "--location", "nowhere"}, "--location"},
      {"name", {"prices", "--location", "us-east5/../x"}, "--location"},
      {"name", {"prices", "--accelerator", "v9x"}, "--accelerator"},
      {"name", {"prices", "--billing-api-key", "AIza key"}, "--billing-api-key"},
      {"env", {"prices"}, "TPUTRAIN_BILLING_API_KEY", {{"TPUTRAIN_BILLING_API_KEY", "AIza\nkey"}}},
      {"number",
       {"job", "submit", "--address", "http://127.0.0.1:9", "--entrypoint-num-cpus", "nan", "--", "echo"},
       "--entrypoint-num-cpus"},
      {"number",
       {"job", "submit", "--address", "http://127.0.0.1:9", "--entrypoint-num-gpus", "-1", "--", "echo"},
       "--entrypoint-num-gpus"},
      {"number",
       {"job", "submit", "--address", "http://127.0.0.1:9", "--entrypoint-memory", "1.5", "--", "echo"},
       "--entrypoint-memory"},
      {"number",
       {"job", "submit", "--address", "http://127.0.0.1:9", "--entrypoint-resources", R"({"TPU": -4})", "--", "echo"},
       "--entrypoint-resources"},
      {"number", {"emulator", "start", "--port", "70000"}, "--port"},
      // durations
      {"duration", {"cluster", "create", "c", "--timeout", "-5m"}, "--timeout"},
      {"duration", {"tpu-vm", "create", "x", "--accelerator-type", "v5p-8", "--ttl", "0s"}, "--ttl"},
      {"duration", {"cluster", "create", "c", "--ttl", "forever"}, "--ttl"},
      {"duration",
       {"image", "build", "/tmp", "--tag", "us-docker.pkg.dev/p/r/i", "--project", "p", "--timeout", "soon"},
       "--timeout"},
      {"duration",
       {"job", "wait", "raysubmit_1", "--address", "http://127.0.0.1:9", "--timeout", "5parsecs"},
       "--timeout"},
      {"duration", {"emulator", "start", "--op-latency", "nan"}, "--op-latency"},
      // URLs
      {"url", {"job", "list", "--address", "ftp://x"}, "--address"},
      {"url", {"job", "list", "--address", "http://127.0.0.1:99999"}, "--address"},
      {"url",
       {"cluster", "list"},
       "CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER",
       {{"CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", "notaurl"},
        {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", "/etc/hostname"}}},
      // files
      {"file",
       {"image", "build", "/nonexistent/context", "--tag", "us-docker.pkg.dev/p/repo/image", "--project", "p"},
       "DIR"},
      {"file", {"image", "build", "/tmp", "--tag", "us-docker.pkg.dev/p/repo/image", "--project", "p"}, "DIR"},
      {"file", {"apply", "-f", "/tmp"}, "-f"},
      {"file", {"apply", "-f", "/nonexistent/manifest.yaml"}, "-f"},
      {"file",
       {"job", "submit", "--address", "http://127.0.0.1:9", "--runtime-env", "/tmp", "--", "echo"},
       "--runtime-env"},
      {"file", {"render", "raycluster-maxtext", "--values", "/tmp"}, "--values"},
      {"file",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--metadata-from-file", "startup-script=/tmp"},
       "--metadata-from-file"},
      {"file", {"--config", "/nonexistent/tputrain.yaml", "config", "show"}, "--config"},
      {"file", {"cluster", "list", "--access-token-file", "/nonexistent/token"}, "--access-token-file", {}, 4},
      {"file",
       {"cluster", "list"},
       "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE",
       {{"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", "/nonexistent/token"}},
       4},
      // KEY=VALUE
      {"key=value",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--metadata", "noequals"},
       "--metadata"},
      {"key=value",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--labels", "tputrain-run=x"},
       "--labels"},
      {"key=value", {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--labels", "Team=x"}, "--labels"},
      {"key=value",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--ray", "--metadata", "startup-script=x"},
       "--metadata"},
      {"key=value", {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--pip", "jax"}, "--pip"},
      {"key=value",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--ray", "--ray-version", "2.60.0 numpy"},
       "--ray-version"},
      {"key=value",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--ray", "--ray-start-args=--resources='{"},
       "--ray-start-args"},
      {"key=value",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--ray", "--ray-timeout", "soon"},
       "--ray-timeout"},
      {"key=value", {"render", "raycluster-maxtext", "--set", "NOEQ"}, "--set 'NOEQ'"},
      {"key=value", {"job", "list", "--address", "http://127.0.0.1:9", "--header", "noColon"}, "--header"},
      {"key=value",
       {"job", "submit", "--address", "http://127.0.0.1:9", "--runtime-env-json", "[1]", "--", "echo"},
       "--runtime-env-json"},
      // environment variables
      {"env", {"cluster", "list"}, "TPUTRAIN_PROJECT", {{"TPUTRAIN_PROJECT", "Bad Project!"}}},
      {"env", {"cluster", "list"}, "TPUTRAIN_LOCATION", {{"TPUTRAIN_LOCATION", "US EAST"}}},
      {"env", {"tpu-vm", "list"}, "CLOUDSDK_CORE_PROJECT", {{"CLOUDSDK_CORE_PROJECT", "p/../q"}}},
      // text that is not UTF-8, in any free-text value (every one may end up in a JSON body)
      {"text",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--metadata", "motd=caf\xe9"},
       "--metadata"},
      {"text", {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--ray", "--pip", "jax\xff"}, "--pip"},
      {"text", {"serve", "generate", "--prompt", "\xc3\x28"}, "--prompt"},
      {"text",
       {"registry", "create", "repo", "--location", "us-east5", "--description", "\xed\xa0\x80"},
       "--description"},
      {"text",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--metadata-from-file", "motd=/usr/bin/true"},
       "--metadata-from-file"},
      {"text", {"tpu-vm", "exec", "vm", "--", "echo", "\xf8\x88\x80\x80\x80"}, "command"},
      {"text", {"job", "submit", "--address", "http://127.0.0.1:9", "--", "echo", "\xc0\xaf"}, "command"},
      // a newline (or an escape sequence) in a value is still one line of error
      {"newline", {"cleanup", "--run", "a\nb", "--yes"}, "--run"},
      {"newline", {"cluster", "create", "c\n\x1b[2Jc"}, "NAME"},
      {"newline", {"render", "raycluster-maxtext", "--set", "A\nB"}, "--set 'A\\nB'"},
      // run ids become the tputrain-run label: lowercase letters, digits, '-', '_'
      {"run id", {"bucket", "create", "gs://ckpt-x", "--run", "Nightly"}, "--run"},
      {"run id", {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--run", "v1.2"}, "--run"},
      {"run id",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8"},
       "TPUTRAIN_RUN",
       {{"TPUTRAIN_RUN", "Nightly"}}},
      {"run id", {"cluster", "create", "c", "--run", std::string(64, 'a')}, "--run"},
      {"run id", {"cluster", "create", "c", "--dry-run"}, "TPUTRAIN_RUN", {{"TPUTRAIN_RUN", "Nightly"}}},
      // namespaces become URL path segments, for every command that takes -n
      {"namespace", {"serve", "status", "-n", "Prod"}, "--namespace"},
      {"namespace", {"serve", "generate", "--prompt", "hi", "-n", "a/b"}, "--namespace"},
      {"namespace", {"serve", "list", "-n", "-x"}, "--namespace"},
      {"namespace", {"serve", "unpublish", "--model", "m", "-n", "x.y"}, "--namespace"},
      // flags that ask for two contradicting things
      {"conflict", {"prices", "--all-regions", "--location", "us-east5"}, "--all-regions"},
      {"conflict",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--zones", "us-east5-a,us-east5-b", "--async"},
       "--async"},
      {"conflict",
       {"nodepool", "create", "tpu", "--cluster", "c", "--tpu-type", "v6e-16", "--zones", "auto", "--async",
        "--location", "us-east5"},
       "--async"},
      // TPU shapes the catalog or GKE's versions rule out (tpu7x, zones, hosts, any reservation)
      {"tpu shape", {"tpu-vm", "create", "v", "--accelerator-type", "tpu7x-8"}, "--accelerator-type"},
      {"tpu shape",
       {"cluster", "create", "c", "--location", "us-central1-c", "--tpu-type", "tpu7x-128", "--cluster-version",
        "1.32"},
       "--cluster-version"},
      {"tpu shape",
       {"nodepool", "create", "p", "--cluster", "c", "--location", "us-central1-c", "--tpu-type", "tpu7x-128",
        "--node-version", "1.33"},
       "--node-version"},
      {"tpu shape",
       {"nodepool", "create", "p", "--cluster", "c", "--location", "us-central1-c", "--tpu-type", "tpu7x-128",
        "--num-nodes", "8"},
       "--num-nodes"},
      {"tpu shape",
       {"nodepool", "create", "p", "--cluster", "c", "--tpu-type", "v6e-16", "--placement-policy", "wp"},
       "--placement-policy"},
      {"tpu shape",
       {"nodepool", "create", "p", "--cluster", "c", "--location", "europe-west1-b", "--tpu-type", "v6e-8"},
       "--location"},
      {"tpu shape", {"tpu-vm", "create", "v", "--location", "europe-west1-b", "--accelerator-type", "v6e-8"}, "--zone"},
      {"tpu shape", {"tpu-vm", "create", "v", "--accelerator-type", "v6e-8", "--reserved", "--spot"}, "--reserved"},
      // directories named to be read must exist
      {"file", {"render", "raycluster-maxtext", "--template-dir", "/nonexistent/templates"}, "--template-dir"},
      {"file", {"runs", "list", "--state-dir", "/nonexistent/state"}, "--state-dir"},
      {"file", {"cleanup", "--scan", "--state-dir", "/nonexistent/state"}, "--state-dir"},
      // Hugging Face token files: one line, one token; the error never quotes it
      {"hf token file",
       {"serve", "up", "--engine", "vllm", "--model", "org/m", "--tpu-type", "v6e-8", "--hf-token-file",
        FileHolding("hf-two-lines", kHfToken + "\n" + kHfToken + "\n"), "--dry-run"},
       "--hf-token-file"},
      {"hf token file",
       {"serve", "up", "--engine", "vllm", "--model", "org/m", "--tpu-type", "v6e-8", "--hf-token-file",
        FileHolding("hf-space", "Bearer " + kHfToken), "--dry-run"},
       "--hf-token-file"},
      {"hf token file",
       {"serve", "up", "--engine", "vllm", "--model", "org/m", "--tpu-type", "v6e-8", "--hf-token-file",
        FileHolding("hf-latin1", kHfToken + "\xe9"), "--dry-run"},
       "--hf-token-file"},
      {"hf token file",
       {"serve", "up", "--engine", "vllm", "--model", "org/m", "--tpu-type", "v6e-8", "--hf-token-file", "/tmp",
        "--dry-run"},
       "--hf-token-file"},
      // setup files: a script every host runs, a metadata value (JSON text)
      {"setup file",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5p-8", "--ray", "--setup",
        FileHolding("setup-latin1.sh", "echo caf\xe9\n")},
       "--setup"},
      {"setup file",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5p-8", "--ray", "--setup", "/nonexistent/setup.sh"},
       "--setup"},
      {"setup file", {"tpu-vm", "create", "vm", "--accelerator-type", "v5p-8", "--ray", "--setup", "/tmp"}, "--setup"},
      // --ttl: the tputrain-expires label, a unix time; what does not fit in one is refused
      {"ttl", {"cluster", "create", "c", "--ttl", "2600000h"}, "--ttl"},
      {"ttl", {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--ttl", "100000h"}, "--ttl"},
      // nothing but --ttl sets that label
      {"ttl",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5litepod-8", "--labels", "tputrain-expires=1"},
       "--labels"},
      {"ttl",
       {"registry", "create", "repo", "--location", "us-east5", "--labels", "tputrain-expires=99999999999"},
       "--labels"},
      // --expired chooses what a scan lists; without --scan it would choose nothing
      {"expired", {"cleanup", "--expired", "--run", "r", "--yes"}, "--expired"},
      {"expired", {"cleanup", "--expired", "--all", "--yes"}, "--expired"},
      {"expired", {"cleanup", "--expired", "--delete-leaked", "--yes"}, "--delete-leaked"},
      // --zones: every element a zone, and not beside --zone (which it would replace)
      {"zones", {"tpu-vm", "create", "vm", "--accelerator-type", "v5p-8", "--zones", "us-east5-a,"}, "--zones"},
      {"zones",
       {"nodepool", "create", "p", "--cluster", "c", "--tpu-type", "v6e-16", "--zones", ",us-east5-a"},
       "--zones"},
      {"zones",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5p-8", "--location", "us-east5-b", "--zones",
        "us-east5-a,us-east5-c"},
       "--zones"},
      // a queued resource's window must be one
      {"valid-until",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5p-8", "--queued", "--valid-after", "2h", "--valid-until",
        "1h"},
       "--valid-until"},
      {"valid-until",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5p-8", "--queued", "--valid-after", "1h", "--valid-until",
        "1h"},
       "--valid-until"},
      {"valid-until",
       {"tpu-vm", "create", "vm", "--accelerator-type", "v5p-8", "--queued", "--valid-until", "0s"},
       "--valid-until"},
  };
  return cases;
}

}  // namespace

TEST_CASE("bad input of every family is one line naming its source, exit 2 (4 for credentials), nothing sent") {
  std::map<std::string, int> families;
  for (const auto& bad : Cases()) {
    ++families[bad.family];
    std::vector<std::string> argv = {TputrainBinary()};
    argv.insert(argv.end(), bad.args.begin(), bad.args.end());
    auto given = [&](const std::string& flag) { return std::find(argv.begin(), argv.end(), flag) != argv.end(); };
    const bool project_from_env = bad.env.count("TPUTRAIN_PROJECT") + bad.env.count("CLOUDSDK_CORE_PROJECT") > 0;
    if (!given("--project") && !project_from_env) argv.insert(argv.end(), {"--project", "p"});
    if (!given("--location") && bad.env.count("TPUTRAIN_LOCATION") == 0) {
      argv.insert(argv.end(), {"--location", "us-east5-b"});
    }
    // Only what the case gives: none of the runner's settings, credentials or tputrain.yaml.
    std::map<std::string, std::optional<std::string>> env = {
        {"TPUTRAIN_PROJECT", std::nullopt},
        {"TPUTRAIN_LOCATION", std::nullopt},
        {"TPUTRAIN_RUN", std::nullopt},
        {"CLOUDSDK_CORE_PROJECT", std::nullopt},
        {"CLOUDSDK_COMPUTE_ZONE", std::nullopt},
        {"CLOUDSDK_COMPUTE_REGION", std::nullopt},
        {"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", std::nullopt},
        {"GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/adc.json"},
        {"CLOUDSDK_CONFIG", "/nonexistent/gcloud"},
        {"XDG_STATE_HOME", "/nonexistent/state"},
        {"CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER", "http://127.0.0.1:9/"},
        {"CLOUDSDK_API_ENDPOINT_OVERRIDES_TPU", "http://127.0.0.1:9/"},
        {"CLOUDSDK_API_ENDPOINT_OVERRIDES_STORAGE", "http://127.0.0.1:9/storage/v1/"},
        {"CLOUDSDK_API_ENDPOINT_OVERRIDES_IAM", "http://127.0.0.1:9/"},
        {"CLOUDSDK_API_ENDPOINT_OVERRIDES_CLOUDRESOURCEMANAGER", "http://127.0.0.1:9/"},
    };
    for (const auto& [name, value] : bad.env) env[name] = value;
    auto result = RunInProcess({.argv = argv, .env = env, .working_dir = "/"});
    std::string shown;
    for (const auto& arg : bad.args) shown += (arg.empty() ? "''" : arg) + " ";
    INFO(bad.family << ": tputrain " << shown << "\nstderr: " << result.err);
    CHECK(result.exit_code == bad.exit_code);
    CHECK(result.out.empty());
    CHECK(result.err.rfind("ERROR: " + bad.names + ":", 0) == 0);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
    CHECK(result.err.find(kHfToken) == std::string::npos);
  }
  // 14: a flag the chosen engine does not take; 15: flags in conflict; 16: TPU shapes;
  // 17-22: hf token files, setup files, ttl, expired, zones, valid-until
  CHECK(families.size() == 22);
}
