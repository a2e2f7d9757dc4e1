// tputrain logs, the parts with no I/O: TARGET, the container choice, the request path, and
// lines from concurrent streams joined whole and prefixed.
#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "tputrain/k8s/pod_logs.h"
#include "tputrain/workflow/logs.h"

namespace tputrain::workflow {
namespace {

using Kind = LogTarget::Kind;

TEST_CASE("TARGET takes kubectl's names of each kind, and a bare pod name", "[logs]") {
  std::map<std::string, Kind> forms = {{"lws/x", Kind::kLeaderWorkerSet},
                                       {"leaderworkerset/x", Kind::kLeaderWorkerSet},
                                       {"leaderworkersets/x", Kind::kLeaderWorkerSet},
                                       {"LeaderWorkerSet/x", Kind::kLeaderWorkerSet},
                                       {"jobset/x", Kind::kJobSet},
                                       {"jobsets/x", Kind::kJobSet},
                                       {"raycluster/x", Kind::kRayCluster},
                                       {"rayclusters/x", Kind::kRayCluster},
                                       {"job/x", Kind::kJob},
                                       {"jobs/x", Kind::kJob},
                                       {"deploy/x", Kind::kDeployment},
                                       {"deployment/x", Kind::kDeployment},
                                       {"deployments/x", Kind::kDeployment},
                                       {"po/x", Kind::kPod},
                                       {"pod/x", Kind::kPod},
                                       {"pods/x", Kind::kPod},
                                       {"x", Kind::kPod}};
  for (const auto& [text, kind] : forms) {
    INFO(text);
    auto target = ParseLogTarget(text);
    REQUIRE(target);
    CHECK(target->kind == kind);
    CHECK(target->name == "x");
  }
  CHECK(ParseLogTarget("lws/jetstream-pathways")->Text() == "lws/jetstream-pathways");
  CHECK(ParseLogTarget("jetstream-pathways-0")->Text() == "pod/jetstream-pathways-0");
}

TEST_CASE("a TARGET the API would refuse is one usage line naming TARGET", "[logs]") {
  for (const char* text : {"", "lws/", "lws/../x", "pod/a/b", "x/../../y", "Upper", "lws/a_b", "svc/x", "/x"}) {
    INFO(text);
    auto target = ParseLogTarget(text);
    REQUIRE_FALSE(target);
    CHECK(core::IsUsageError(target.error()));
    CHECK(target.error().message.starts_with("TARGET"));
    CHECK(target.error().message.find('\n') == std::string::npos);
  }
  CHECK(ParseLogTarget("svc/x").error().message.find("unknown kind 'svc'") != std::string::npos);
}

TEST_CASE("the pods of each kind are found by the labels their operators set", "[logs]") {
  CHECK(PodSelectors(*ParseLogTarget("lws/a")) == std::vector<std::string>{"leaderworkerset.sigs.k8s.io/name=a"});
  CHECK(PodSelectors(*ParseLogTarget("jobset/a")) == std::vector<std::string>{"jobset.sigs.k8s.io/jobset-name=a"});
  CHECK(PodSelectors(*ParseLogTarget("raycluster/a")) == std::vector<std::string>{"ray.io/cluster=a"});
  // Jobs made before Kubernetes 1.27 only carry job-name.
  CHECK(PodSelectors(*ParseLogTarget("job/a")) ==
        std::vector<std::string>{"batch.kubernetes.io/job-name=a", "job-name=a"});
  CHECK(PodSelectors(*ParseLogTarget("pod/a")).empty());
}

nlohmann::json PodWith(const std::vector<std::string>& containers, const std::string& default_container = "") {
  nlohmann::json pod = {{"metadata", {{"name", "p"}}}, {"spec", {{"containers", nlohmann::json::array()}}}};
  for (const auto& name : containers) pod["spec"]["containers"].push_back({{"name", name}});
  if (!default_container.empty()) {
    pod["metadata"]["annotations"] = {{"kubectl.kubernetes.io/default-container", default_container}};
  }
  return pod;
}

TEST_CASE("the container is chosen as kubectl chooses it", "[logs]") {
  CHECK(*ChooseContainer(PodWith({"main"}), "") == "main");
  CHECK(*ChooseContainer(PodWith({"a", "b"}), "b") == "b");
  CHECK(*ChooseContainer(PodWith({"a", "b"}, "b"), "") == "b");
  auto init = PodWith({"a"});
  init["spec"]["initContainers"] = {{{"name", "setup"}}};
  CHECK(*ChooseContainer(init, "setup") == "setup");

  auto several = ChooseContainer(PodWith({"a", "b"}), "");
  REQUIRE_FALSE(several);
  CHECK(core::IsUsageError(several.error()));
  CHECK(several.error().message == "-c/--container: pod/p has 2 containers, choose one of: a, b");
  // An annotation naming no container of the pod is ignored, as kubectl ignores it.
  CHECK_FALSE(ChooseContainer(PodWith({"a", "b"}, "c"), ""));

  auto absent = ChooseContainer(PodWith({"a", "b"}), "c");
  REQUIRE_FALSE(absent);
  CHECK(absent.error().message == "-c/--container: pod/p has no container 'c'; its containers: a, b");
}

TEST_CASE("the log request carries only the options given, names as single path segments", "[logs]") {
  k8s::PodLogOptions options;
  CHECK(k8s::PodLogPath("ml", "jet-0", options) == "/api/v1/namespaces/ml/pods/jet-0/log");
  options.container = "jax-tpu";
  options.follow = true;
  options.since_seconds = 600;
  options.tail_lines = 0;
  options.timestamps = true;
  CHECK(k8s::PodLogPath("ml", "jet-0", options) ==
        "/api/v1/namespaces/ml/pods/jet-0/log?container=jax-tpu&follow=true&sinceSeconds=600&tailLines=0"
        "&timestamps=true");
  CHECK(k8s::PodLogPath("..", "a/b", {}) == "/api/v1/namespaces/%2E%2E/pods/a%2Fb/log");
}

TEST_CASE("the API's answer for a container not started yet is told apart", "[logs]") {
  auto waiting = k8s::ErrorFromStatus(
      400,
      R"({"kind":"Status","status":"Failure","message":"container \"main\" in pod \"p\" is waiting to start: ContainerCreating","reason":"BadRequest","code":400})",
      "pod/p");
  CHECK(k8s::IsWaitingToStart(waiting));
  CHECK(waiting.message == "pod/p: container \"main\" in pod \"p\" is waiting to start: ContainerCreating");
  CHECK_FALSE(k8s::IsWaitingToStart(k8s::ErrorFromStatus(404, R"({"message":"pods \"p\" not found"})", "pod/p")));
}

TEST_CASE("a stream's chunks become whole prefixed lines, whatever the cuts", "[logs]") {
  std::string out;
  LineSink sink([&](std::string_view lines) { out += lines; });
  LineJoiner joiner(sink, "[pod/p/c] ");
  joiner.Add("one\ntw");
  CHECK(out == "[pod/p/c] one\n");
  joiner.Add("o");
  joiner.Add("\n\nthree");
  CHECK(out == "[pod/p/c] one\n[pod/p/c] two\n[pod/p/c] \n");
  joiner.Finish();  // the last line had no newline
  CHECK(out == "[pod/p/c] one\n[pod/p/c] two\n[pod/p/c] \n[pod/p/c] three\n");
  joiner.Finish();
  CHECK(out.size() == std::string("[pod/p/c] one\n[pod/p/c] two\n[pod/p/c] \n[pod/p/c] three\n").size());
}

TEST_CASE("a line longer than the limit goes out in pieces", "[logs]") {
  std::string out;
  LineSink sink([&](std::string_view lines) { out += lines; });
  LineJoiner joiner(sink, "> ", 4);
  joiner.Add("abcdefghij\nxy");
  joiner.Add("z\n");
  CHECK(out == "> abcd\n> efgh\n> ij\n> xyz\n");
  LineJoiner exact(sink, "", 3);
  out.clear();
  exact.Add("abc");
  exact.Add("\n");
  CHECK(out == "abc\n");  // a line of exactly the limit stays one line
}

TEST_CASE("concurrent streams interleave whole lines, each stream in its order", "[logs]") {
  constexpr int kStreams = 8;
  constexpr int kLines = 400;
  std::string out;
  int writes = 0;
  LineSink sink([&](std::string_view lines) {
    out += lines;
    ++writes;  // under the sink's lock, as `out` is
  });
  std::vector<std::thread> threads;
  for (int s = 0; s < kStreams; ++s) {
    threads.emplace_back([&sink, s] {
      LineJoiner joiner(sink, "[pod/p" + std::to_string(s) + "/c] ");
      std::string text;
      for (int n = 0; n < kLines; ++n) text += "stream " + std::to_string(s) + " line " + std::to_string(n) + "\n";
      // Cut into uneven chunks of 1 to 7 bytes, so that almost every line spans chunks.
      for (size_t at = 0, cut = 1; at < text.size(); at += cut, cut = cut % 7 + 1) {
        joiner.Add(std::string_view(text).substr(at, cut));
      }
      joiner.Finish();
    });
  }
  for (auto& thread : threads) thread.join();
  std::regex whole(R"(\[pod/p(\d)/c\] stream (\d) line (\d+))");
  std::vector<int> next(kStreams, 0);
  std::istringstream lines(out);
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    std::smatch match;
    REQUIRE(std::regex_match(line, match, whole));
    int stream = std::stoi(match[1].str());
    REQUIRE(match[2].str() == match[1].str());
    REQUIRE(std::stoi(match[3].str()) == next[stream]);
    ++next[stream];
  }
  CHECK(count == kStreams * kLines);
  CHECK(writes > kStreams);  // the streams did take turns
}

}  // namespace
}  // namespace tputrain::workflow

namespace tputrain::workflow {
namespace {

TEST_CASE("logs flags: each checked before any call, naming its flag", "[logs]") {
  LogsFlags flags;
  flags.target = "lws/serve";
  flags.since = "1500ms";
  flags.tail = "-1";
  flags.no_prefix = true;
  auto request = flags.Resolve();
  REQUIRE(request);
  CHECK(request->target.Text() == "lws/serve");
  CHECK(request->log.since_seconds == 2);  // rounded up to whole seconds, as kubectl does
  CHECK_FALSE(request->log.tail_lines);    // -1: the whole log
  CHECK(request->prefix == std::optional<bool>(false));
  CHECK(request->max_log_requests == 5);

  auto refused = [](LogsFlags bad) {
    auto resolved = bad.Resolve();
    REQUIRE_FALSE(resolved);
    CHECK(resolved.error().kind == core::ErrorKind::kInvalidArgument);
    return resolved.error().message;
  };
  LogsFlags previous = flags;
  previous.previous = previous.follow = true;
  CHECK(refused(previous).find("--previous: a previous instance has ended") == 0);
  LogsFlags tail = flags;
  tail.tail = "x";
  CHECK(refused(tail).find("--tail") != std::string::npos);
  LogsFlags many = flags;
  many.max_log_requests = "1001";
  CHECK(refused(many).find("--max-log-requests") != std::string::npos);
  LogsFlags container = flags;
  container.container = "Bad_Name";
  CHECK(refused(container).find("-c/--container") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::workflow
