#include "tpu_vm_exec.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tputrain/core/number.h"
#include "tputrain/ray/entrypoint.h"

namespace tputrain::workflow {
namespace {

// The driver: one zero-CPU task per chosen host, pinned to the Ray node at its address (hard
// affinity), each running the command; lines come back prefixed "[worker N] ", in worker order.
constexpr char kDriver[] = R"PY(import json, subprocess, sys
import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
hosts = json.loads(sys.argv[1])  # {"0": "10.0.0.2", ...}: the workers to run on
command = sys.argv[2:]
ray.init()
by_ip = {n["NodeManagerAddress"]: n["NodeID"] for n in ray.nodes() if n["Alive"]}
missing = [w for w, ip in hosts.items() if ip not in by_ip]
if missing:
    sys.exit("no live Ray node on worker(s) " + ", ".join(missing) + " (tputrain tpu-vm ray-status)")
@ray.remote(num_cpus=0)
def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr
calls = {w: run.options(scheduling_strategy=NodeAffinitySchedulingStrategy(by_ip[ip], soft=False)).remote(command)
         for w, ip in hosts.items()}
failed = []
for worker in sorted(calls, key=int):
    code, out, err = ray.get(calls[worker])
    for line in (out + err).splitlines():
        print(f"[worker {worker}] {line}", flush=True)
    if code != 0:
        failed.append(f"{worker} (exit {code})")
if failed:
    sys.exit("failed on worker " + ", ".join(failed))
)PY";

}  // namespace

core::Result<std::vector<int>> ParseWorkers(const std::string& flag, const std::string& value, int hosts) {
  std::vector<int> workers;
  if (value == "all") {
    for (int worker = 0; worker < hosts; ++worker) workers.push_back(worker);
    return workers;
  }
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = value.find(',', start);
    const std::string part = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    auto worker = core::ParseWhole(flag, part, 0, hosts - 1);
    if (!worker) {
      return core::Fail(core::Error::Usage(flag + ": expected all, or worker numbers 0 to " +
                                           std::to_string(hosts - 1) + " separated by commas, got '" + value + "'"));
    }
    if (std::find(workers.begin(), workers.end(), static_cast<int>(*worker)) == workers.end()) {
      workers.push_back(static_cast<int>(*worker));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return workers;
}

core::Result<ray::SubmitRequest> TpuVmExecRequest(const std::vector<std::string>& worker_ips,
                                                  const std::vector<int>& workers,
                                                  const std::vector<std::string>& command) {
  if (command.empty()) return core::Fail(core::Error::Usage("COMMAND: give it after --"));
  nlohmann::json hosts = nlohmann::json::object();
  for (int worker : workers) {
    if (worker < 0 || static_cast<std::size_t>(worker) >= worker_ips.size() || worker_ips[worker].empty()) {
      return core::Fail(core::Error::Make(core::ErrorKind::kFailedPrecondition,
                                          "worker " + std::to_string(worker) + " has no address yet"));
    }
    hosts[std::to_string(worker)] = worker_ips[static_cast<std::size_t>(worker)];
  }
  std::vector<std::string> argv = {"python", "-c", kDriver, hosts.dump()};
  argv.insert(argv.end(), command.begin(), command.end());
  ray::SubmitRequest request;
  request.entrypoint = ray::ShellJoin(argv);
  return request;
}

}  // namespace tputrain::workflow
