// A typo in a flag or a command is one line, exit 2, that names the word and the nearest valid
// ones, before anything is read or sent.
#include <catch2/catch.hpp>

#include "testing/scoped_process.h"
#include "testing/test_factory.h"

using tputrain::testing::RunInProcess;
using tputrain::testing::TputrainBinary;

namespace {

struct Typo {
  std::vector<std::string> args;
  std::string line;  // stderr, whole
};

void ChecksOut(const Typo& typo) {
  std::vector<std::string> argv = {TputrainBinary()};
  argv.insert(argv.end(), typo.args.begin(), typo.args.end());
  auto result = RunInProcess({.argv = argv, .env = {{"TPUTRAIN_PROJECT", "p"}}});
  INFO(result.err);
  CHECK(result.exit_code == 2);
  CHECK(result.out.empty());
  CHECK(result.err == typo.line);
}

}  // namespace

TEST_CASE("five mistyped flags each get the flag meant") {
  for (const auto& typo : std::vector<Typo>{
           {{"cluster", "create", "c", "--location", "us-east5-b", "--tpu-typ", "v6e-16"},
            "ERROR: --tpu-typ: no such flag for 'tputrain cluster create'; did you mean --tpu-type?\n"},
           {{"plan", "--mdoel", "llama3-8b"},
            "ERROR: --mdoel: no such flag for 'tputrain plan'; did you mean --model?\n"},
           // A global flag is offered under any command.
           {{"cluster", "list", "--projcet", "p"},
            "ERROR: --projcet: no such flag for 'tputrain cluster list'; did you mean --project?\n"},
           {{"tpu-vm", "create", "v", "--zone", "us-east5-b", "--acelerator-type", "v5p-8"},
            "ERROR: --acelerator-type: no such flag for 'tputrain tpu-vm create'; did you mean --accelerator-type?\n"},
           // The --flag=value form is named by its flag alone.
           {{"nodepool", "create", "p", "--cluster", "c", "--num-slice=2"},
            "ERROR: --num-slice: no such flag for 'tputrain nodepool create'; did you mean --num-slices?\n"},
       }) {
    ChecksOut(typo);
  }
}

TEST_CASE("three mistyped commands each get the command meant") {
  for (const auto& typo : std::vector<Typo>{
           {{"cluster", "creat", "c"}, "ERROR: creat: no such command of 'tputrain cluster'; did you mean create?\n"},
           {{"clustr", "list"}, "ERROR: clustr: no such command of 'tputrain'; did you mean cluster?\n"},
           {{"serve", "genrate", "--prompt", "hi"},
            "ERROR: genrate: no such command of 'tputrain serve'; did you mean generate?\n"},
       }) {
    ChecksOut(typo);
  }
}

TEST_CASE("nothing near: the command's flags or commands are pointed at") {
  ChecksOut({{"cluster", "list", "--xyzzy"},
             "ERROR: --xyzzy: no such flag for 'tputrain cluster list' (see tputrain cluster list --help)\n"});
  ChecksOut({{"auth", "frobnicate"},
             "ERROR: frobnicate: no such command of 'tputrain auth'; its commands: status or print-access-token\n"});
  ChecksOut({{"auth"}, "ERROR: 'tputrain auth' needs a command: status or print-access-token\n"});
}
