// A command builds its own group of the tree alone: the table of groups must say exactly what
// each group adds, and the command word must be found past the global flags or not at all.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "command_groups.h"
#include "testing/test_factory.h"

namespace tputrain::cli {
namespace {

std::set<std::string> TopLevel(const CLI::App& app) {
  std::set<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.insert(command->get_name());
  }
  return names;
}

std::set<std::string> Split(std::string_view names) {
  std::set<std::string> words;
  std::istringstream in{std::string(names)};
  for (std::string word; in >> word;) words.insert(word);
  return words;
}

TEST_CASE("each command group adds exactly the commands the table names, and together the whole tree", "[unit]") {
  testing::TestFactory factory;
  Context context(core::Env(std::map<std::string, std::string>{}), factory);
  CLI::App whole;
  std::set<std::string> named;
  for (const auto& group : CommandGroups()) {
    INFO(group.names);
    CLI::App alone;
    group.setup(alone, context);
    CHECK(TopLevel(alone) == Split(group.names));
    for (const auto& name : Split(group.names)) {
      CHECK(named.insert(name).second);  // no command in two groups
      CHECK(GroupOf(name) == &group);
    }
    group.setup(whole, context);
  }
  CHECK(TopLevel(whole) == named);
  CHECK(GroupOf("clustr") == nullptr);
  CHECK(GroupOf("") == nullptr);
}

TEST_CASE("the command word is found past the global flags and their values, or not at all", "[unit]") {
  auto word = [](std::vector<const char*> args) {
    args.insert(args.begin(), "tputrain");
    return std::string(CommandWord(static_cast<int>(args.size()), args.data()));
  };
  CHECK(word({"cluster", "list"}) == "cluster");
  CHECK(word({"--project", "up", "cluster", "list"}) == "cluster");  // up is --project's value
  CHECK(word({"--format=json", "-q", "--zone", "us-east5-b", "job", "status", "x"}) == "job");
  CHECK(word({"--dry-run", "serve", "up"}) == "serve");
  CHECK(word({"--help", "cluster"}).empty());                 // the whole tree's help
  CHECK(word({"--run", "r", "registry", "create"}).empty());  // not a global flag: the whole tree says so
  CHECK(word({"--project"}).empty());
  CHECK(word({}).empty());
}

TEST_CASE("a command run with its group alone behaves as with the whole tree", "[unit]") {
  // A typo of a subcommand is suggested from the group; a typo of a command from the whole tree.
  auto sub = testing::RunInProcess({{"tputrain", "cluster", "creat"}});
  CHECK(sub.exit_code == 2);
  CHECK(sub.err == "ERROR: creat: no such command of 'tputrain cluster'; did you mean create?\n");
  auto top = testing::RunInProcess({{"tputrain", "clustr", "list"}});
  CHECK(top.exit_code == 2);
  CHECK(top.err.find("cluster") != std::string::npos);
  auto flag = testing::RunInProcess({{"tputrain", "nodepool", "create", "p", "--tpu-typ", "v6e-16"}});
  CHECK(flag.exit_code == 2);
  CHECK(flag.err.find("--tpu-type") != std::string::npos);
}

}  // namespace
}  // namespace tputrain::cli
