// The startup script itself, run by bash as a host would run it: the metadata server is a
// directory (curl on PATH serves it, and takes the guest-attribute PUTs), and pip and `ray`
// record the arguments they were given, so what each flag's values become on a host is seen
// exactly — in a working directory whose entries a glob would pick up.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "testing/scoped_process.h"
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {
namespace {

namespace fs = std::filesystem;

constexpr char kCurl[] = R"SH(#!/bin/bash
# The metadata server, from files under $TEST_MD: GET prints one (22 when absent, as curl -f);
# PUT writes one.
method=GET data= url=
while [ $# -gt 0 ]; do
  case $1 in
    -X) method=$2; shift ;;
    --data-binary) data=$2; shift ;;
    -H|--max-time) shift ;;
    http://*) url=$1 ;;
  esac
  shift
done
path=$TEST_MD/${url#http://metadata.google.internal/computeMetadata/v1/instance/}
if [ "$method" = PUT ]; then mkdir -p "$(dirname "$path")" && printf '%s' "$data" >"$path"; exit; fi
[ -f "$path" ] || exit 22
cat "$path"
)SH";

// pip and ray: each argument as given, NUL-terminated.
constexpr char kRecorder[] = R"SH(#!/bin/bash
[ "${1:-}" = --version ] && { echo "ray, version 2.60.0"; exit 0; }
printf '%s\0' "$@" >"$TEST_OUT/$(basename "$0").args"
)SH";

struct Host {
  fs::path root;
  Host() {
    char dir[] = "/tmp/tputrain-script-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    root = dir;
    for (const char* sub : {"bin", "md/attributes", "md/network-interfaces/0", "out", "cwd/lost+found"}) {
      fs::create_directories(root / sub);
    }
    std::ofstream(root / "cwd/a.txt") << "x";
    Write("bin/curl", kCurl, true);
    Write("bin/python3", kRecorder, true);
    Write("bin/ray", kRecorder, true);
  }
  ~Host() { fs::remove_all(root); }
  void Write(const std::string& path, const std::string& text, bool executable = false) {
    std::ofstream(root / path, std::ios::binary) << text;
    if (executable) fs::permissions(root / path, fs::perms::owner_all);
  }
  std::vector<std::string> Args(const std::string& program) {
    std::ifstream in(root / "out" / (program + ".args"), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (std::size_t start = 0, end; (end = text.find('\0', start)) != std::string::npos; start = end + 1) {
      args.push_back(text.substr(start, end - start));
    }
    return args;
  }
  std::string Read(const std::string& path) {
    std::ifstream in(root / path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
};

}  // namespace

TEST_CASE("each pip package and ray start word reaches the host's pip and ray whole, neither split nor globbed") {
  Host host;
  RayBoot boot;
  boot.token = NewRayToken();
  boot.packages = {"*", "ray >= 2.0"};
  boot.start_args = R"(--num-cpus=1 --resources='{"probe": 1}')";
  auto metadata = RayMetadata(boot, {});
  REQUIRE(metadata);
  host.Write("md/attributes/agent-worker-number", "0");
  host.Write("md/network-interfaces/0/ip", "10.0.0.2");
  host.Write("md/attributes/worker-network-endpoints", "unknown:unknown:10.0.0.2,unknown:unknown:10.0.0.3");
  for (const auto& [key, value] : *metadata) {
    if (key != "startup-script") host.Write("md/attributes/" + key, value);
  }
  host.Write("startup-script", metadata->at("startup-script"));

  auto ran = testing::RunProcess({.argv = {"/bin/bash", (host.root / "startup-script").string()},
                                  .env = {{"PATH", (host.root / "bin").string() + ":/usr/bin:/bin"},
                                          {"TEST_MD", (host.root / "md").string()},
                                          {"TEST_OUT", (host.root / "out").string()}},
                                  .working_dir = (host.root / "cwd").string()});
  INFO(ran.err);
  REQUIRE(ran.exit_code == 0);
  CHECK(host.Read("md/guest-attributes/tputrain/ray-state") == "ready");
  CHECK(host.Args("python3") == std::vector<std::string>{"-m", "pip", "install", "--quiet", "*", "ray >= 2.0"});
  CHECK(host.Args("ray") == std::vector<std::string>{"start", "--head", "--node-ip-address=10.0.0.2", "--port=6379",
                                                     "--dashboard-host=0.0.0.0", "--disable-usage-stats",
                                                     "--num-cpus=1", "--resources={\"probe\": 1}"});
}

}  // namespace tputrain::workflow
