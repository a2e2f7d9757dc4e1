// The startup script itself, run by bash as a host would run it: the metadata server is a
// directory (curl on PATH serves it, and takes the guest-attribute PUTs), and pip and `ray`
// record the arguments they were given, so what each flag's values become on a host is seen
// exactly — in a working directory whose entries a glob would pick up.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

// `ray start` that fails its first $TEST_RAY_FAILS runs as Ray does when the head is slow to
// register a raylet, leaving behind what it started (a process that would go on registering);
// each run's arguments and RAY_raylet_start_wait_time_s are recorded.
constexpr char kFlakyRay[] = R"SH(#!/bin/bash
[ "${1:-}" = --version ] && { echo "ray, version 2.60.0"; exit 0; }
n=$(( $(cat "$TEST_OUT/ray.runs" 2>/dev/null || echo 0) + 1 ))
echo "$n" >"$TEST_OUT/ray.runs"
printf '%s\0' "$@" >"$TEST_OUT/ray.args"
echo "${RAY_raylet_start_wait_time_s:-unset}" >"$TEST_OUT/ray.wait"
if [ "$n" -le "${TEST_RAY_FAILS:-0}" ]; then
  sleep 300 >/dev/null 2>&1 &
  echo $! >>"$TEST_OUT/ray.leftovers"
  echo "GCS cannot find the node with node ID 01ab. Try increase the RAY_raylet_start_wait_time_s config." >&2
  exit 1
fi
)SH";

// A worker host (worker 1) whose head, 127.0.0.1:6379, is a listener in a network namespace of
// the test's own (a user namespace maps root, so no privilege is needed).
testing::ProcessResult RunWorker(Host& host, int fails, int ray_timeout_s) {
  RayBoot boot;
  boot.token = NewRayToken();
  boot.join_within = std::chrono::seconds(ray_timeout_s);
  auto metadata = RayMetadata(boot, {});
  REQUIRE(metadata);
  host.Write("md/attributes/agent-worker-number", "1");
  host.Write("md/network-interfaces/0/ip", "127.0.0.2");
  host.Write("md/attributes/worker-network-endpoints", "unknown:unknown:127.0.0.1,unknown:unknown:127.0.0.2");
  for (const auto& [key, value] : *metadata) {
    if (key != "startup-script") host.Write("md/attributes/" + key, value);
  }
  host.Write("startup-script", metadata->at("startup-script"));
  host.Write("bin/ray", kFlakyRay, true);
  const std::string inside =
      "ip link set lo up; "
      "/usr/bin/python3 -c 'import socket, time; s = socket.socket(); s.bind((\"127.0.0.1\", 6379)); s.listen(); "
      "time.sleep(120)' >/dev/null 2>&1 & head=$!; sleep 0.5; bash \"$1\"; code=$?; kill $head; exit $code";
  return testing::RunProcess({.argv = {"unshare", "--user", "--map-root-user", "--net", "/bin/bash", "-c", inside,
                                       "worker", (host.root / "startup-script").string()},
                              .env = {{"PATH", (host.root / "bin").string() + ":/usr/sbin:/usr/bin:/sbin:/bin"},
                                      {"TEST_MD", (host.root / "md").string()},
                                      {"TEST_OUT", (host.root / "out").string()},
                                      {"TEST_RAY_FAILS", std::to_string(fails)}},
                              .working_dir = (host.root / "cwd").string()},
                             std::chrono::seconds(120));
}

// Alive, and not a zombie waiting for its parent to read it.
bool Running(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

}  // namespace

// On a loaded machine a head took 43 s to start and a worker's one `ray start --address` timed
// out registering its raylet: the whole create failed. A real slice's hosts boot at different
// speeds too.
TEST_CASE("a worker retries ray start --address with backoff, ending each failed try's processes") {
  Host host;
  auto ran = RunWorker(host, 2, 1800);
  INFO(ran.out << ran.err);
  REQUIRE(ran.exit_code == 0);
  CHECK(host.Read("md/guest-attributes/tputrain/ray-state") == "ready");
  CHECK(host.Read("out/ray.runs") == "3\n");
  CHECK(host.Args("ray") == std::vector<std::string>{"start", "--address=127.0.0.1:6379", "--node-ip-address=127.0.0.2",
                                                     "--disable-usage-stats"});
  // Ray's own wait for a raylet to register, longer than its default.
  CHECK(host.Read("out/ray.wait") == "120\n");
  std::istringstream leftovers(host.Read("out/ray.leftovers"));
  int ended = 0;
  for (std::string pid; std::getline(leftovers, pid);) {
    INFO("pid " << pid);
    CHECK_FALSE(Running(pid));
    ++ended;
  }
  CHECK(ended == 2);
}

TEST_CASE("a worker that cannot join within --ray-timeout reports failed, with the tries it made") {
  Host host;
  auto ran = RunWorker(host, 1000, 3);
  INFO(ran.out << ran.err);
  CHECK(ran.exit_code == 1);
  CHECK(host.Read("md/guest-attributes/tputrain/ray-state") == "failed");
  const std::string message = host.Read("md/guest-attributes/tputrain/ray-message");
  CHECK_THAT(message, Catch::Matches("ray start --address=127\\.0\\.0\\.1:6379 failed [0-9]+ times in 3 s "
                                     "\\(--ray-timeout\\); the last said: GCS cannot find the node .*"));
}

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
