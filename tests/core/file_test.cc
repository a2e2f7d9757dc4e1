#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "tputrain/core/file.h"
#include "tputrain/core/text_file.h"

namespace fs = std::filesystem;
using tputrain::core::ReadFile;

namespace {

struct TempDir {
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tputrain-file-test-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
  std::string Write(const std::string& name, const std::string& content) const {
    std::string file = path + "/" + name;
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }
  std::string path;
};

}  // namespace

TEST_CASE("ReadFile returns the bytes as they are, up to the limit", "[unit]") {
  TempDir dir;
  std::string bytes("line one\r\nnul \0 inside\n", 23);
  auto text = ReadFile(dir.Write("a.txt", bytes), "--values", 1024);
  REQUIRE(text);
  CHECK(*text == bytes);
  auto empty = ReadFile(dir.Write("empty", ""), "--values", 1024);
  REQUIRE(empty);
  CHECK(empty->empty());
  auto exact = ReadFile(dir.Write("exact", std::string(100, 'x')), "--values", 100);
  REQUIRE(exact);
  CHECK(exact->size() == 100);
}

TEST_CASE("ReadFile refuses with one usage line naming the flag: missing, directory, too large", "[unit]") {
  TempDir dir;
  auto missing = ReadFile(dir.path + "/absent.yaml", "--values", 1024);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "--values: cannot read " + dir.path + "/absent.yaml");
  CHECK(tputrain::core::IsFileNotFound(missing.error()));
  CHECK(tputrain::core::ExitCodeFor(missing.error()) == 2);

  auto directory = ReadFile(dir.path, "--values", 1024);
  REQUIRE_FALSE(directory);
  CHECK(directory.error().message == "--values: " + dir.path + " is a directory");
  CHECK_FALSE(tputrain::core::IsFileNotFound(directory.error()));

  auto large = ReadFile(dir.Write("big", std::string(2049, 'x')), "--values", 2 * tputrain::core::kKiB);
  REQUIRE_FALSE(large);
  CHECK(large.error().message == "--values: " + dir.path + "/big is larger than 2 KiB");
  CHECK(large.error().reason == tputrain::core::kFileTooLarge);

  auto unnamed = ReadFile(dir.path + "/absent", "", 1024);
  REQUIRE_FALSE(unnamed);
  CHECK(unnamed.error().message == "cannot read " + dir.path + "/absent");
}

TEST_CASE("ReadFile on a file it may not read says why", "[unit]") {
  if (geteuid() == 0) {
    SUCCEED("root reads any file; nothing to check");
    return;
  }
  TempDir dir;
  std::string secret = dir.Write("secret", "x");
  fs::permissions(secret, fs::perms::none);
  auto text = ReadFile(secret, "--key-file", 1024);
  REQUIRE_FALSE(text);
  CHECK(text.error().message == "--key-file: cannot read " + secret + " (Permission denied)");
  CHECK(text.error().reason == tputrain::core::kFileUnreadable);
}

TEST_CASE("ReadStream bounds standard input the same way", "[unit]") {
  std::istringstream small("apiVersion: v1\n");
  auto read = tputrain::core::ReadStream(small, "<stdin>", "-f", 1024);
  REQUIRE(read);
  CHECK(*read == "apiVersion: v1\n");
  std::istringstream large(std::string(2048, 'x'));
  auto refused = tputrain::core::ReadStream(large, "<stdin>", "-f", 1024);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "-f: <stdin> is larger than 1 KiB");
  CHECK(refused.error().kind == tputrain::core::ErrorKind::kInvalidArgument);
}

// A FIFO where a file is expected (a token file, a price cache): open(2) would wait for a writer
// for ever. It is read while a writer gives bytes, as process substitution's pipe is, and given up
// on when none does.
TEST_CASE("ReadFile never waits for ever on a FIFO: a writer's bytes are read, none writing is an error", "[unit]") {
  TempDir dir;
  const std::string fifo = dir.path + "/token";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto quiet = std::async(std::launch::async,
                          [&] { return ReadFile(fifo, "--access-token-file", 4096, std::chrono::milliseconds(300)); });
  if (quiet.wait_for(std::chrono::seconds(30)) == std::future_status::timeout) {
    close(open(fifo.c_str(), O_WRONLY));  // releases the reader blocked in open(2)
    FAIL("ReadFile blocked on a FIFO that nobody writes");
  }
  auto nothing = quiet.get();
  REQUIRE_FALSE(nothing);
  CHECK(nothing.error().message == "--access-token-file: " + fifo + " is a pipe that gave nothing to read in 300 ms");
  CHECK(nothing.error().kind == tputrain::core::ErrorKind::kInvalidArgument);

  std::thread writer([&] {
    const int fd = open(fifo.c_str(), O_WRONLY);  // waits for the reader
    if (fd < 0) return;
    CHECK(write(fd, "ya29.", 5) == 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(write(fd, "token\n", 6) == 6);
    close(fd);
  });
  auto read = ReadFile(fifo, "--access-token-file", 4096, std::chrono::seconds(20));
  writer.join();
  REQUIRE(read);
  CHECK(*read == "ya29.token\n");
}

TEST_CASE("ReadTextFile refuses what is not UTF-8 text with one usage line naming the flag", "[unit]") {
  TempDir dir;
  auto text = tputrain::core::ReadTextFile(dir.Write("setup.sh", "echo caf\xc3\xa9\n"), "--setup", 1024);
  REQUIRE(text);
  CHECK(*text == "echo caf\xc3\xa9\n");
  const std::string latin1 = dir.Write("latin1.sh", "echo caf\xe9\n");
  auto refused = tputrain::core::ReadTextFile(latin1, "--setup", 1024);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "--setup: " + latin1 + " is not UTF-8 text");
  CHECK(refused.error().reason == tputrain::core::kFileNotText);
  CHECK(tputrain::core::ExitCodeFor(refused.error()) == 2);
  CHECK_FALSE(tputrain::core::ReadTextFile(dir.path + "/absent", "--setup", 1024));
}
