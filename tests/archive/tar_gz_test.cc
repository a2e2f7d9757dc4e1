#include "tputrain/archive/tar_gz.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

namespace tputrain::archive {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  TempDir() {
    char name[] = "/tmp/tputrain-tar-test-XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path path;
};

TEST_CASE("a written tar.gz lists back with its paths, sizes and link") {
  TempDir dir;
  std::ofstream(dir.path / "Dockerfile") << "FROM scratch\n";
  fs::create_directories(dir.path / "src");
  std::ofstream(dir.path / "src" / "train.py") << std::string(200000, 'x');
  fs::create_symlink("train.py", dir.path / "src" / "link.py");

  auto bytes = WriteTarGz({{"Dockerfile", dir.path / "Dockerfile"},
                           {"src/train.py", dir.path / "src" / "train.py"},
                           {"src/link.py", dir.path / "src" / "link.py"}});
  REQUIRE(bytes);
  CHECK(bytes->size() < 2000);  // 200 kB of one letter compresses: it is gzip
  CHECK(static_cast<unsigned char>((*bytes)[0]) == 0x1f);

  auto entries = ListTarGz(*bytes, 1 << 20, 10);
  REQUIRE(entries);
  REQUIRE(entries->size() == 3);
  CHECK((*entries)[0].path == "Dockerfile");
  CHECK((*entries)[0].size == 13);
  CHECK((*entries)[1].path == "src/train.py");
  CHECK((*entries)[1].size == 200000);
  CHECK((*entries)[1].regular_file);
  CHECK((*entries)[2].path == "src/link.py");
  CHECK_FALSE((*entries)[2].regular_file);
}

TEST_CASE("listing refuses what is not tar.gz and what expands past its bounds") {
  TempDir dir;
  std::ofstream(dir.path / "big") << std::string(300000, '0');
  auto bytes = WriteTarGz({{"big", dir.path / "big"}});
  REQUIRE(bytes);

  auto too_big = ListTarGz(*bytes, 100000, 10);
  REQUIRE_FALSE(too_big);
  CHECK(too_big.error().message.find("expands past 100000 bytes") != std::string::npos);

  auto plain = ListTarGz("just some text, not an archive", 1 << 20, 10);
  REQUIRE_FALSE(plain);
  CHECK(plain.error().message.find("not") != std::string::npos);

  auto truncated = ListTarGz(bytes->substr(0, bytes->size() / 2), 1 << 20, 10);
  CHECK_FALSE(truncated);
}

TEST_CASE("a missing file is one error naming it") {
  auto bytes = WriteTarGz({{"Dockerfile", "/nonexistent/tputrain/Dockerfile"}});
  REQUIRE_FALSE(bytes);
  CHECK(bytes.error().message == "/nonexistent/tputrain/Dockerfile: cannot be read");
}

TEST_CASE("names that are not ASCII are packed as UTF-8, as gcloud packs them, and list back") {
  // The process never calls setlocale: libarchive runs in the C locale, where these names once
  // could not be written ("Can't translate pathname") nor listed from gcloud's archives.
  TempDir dir;
  const std::string resume = "r\xc3\xa9sum\xc3\xa9.txt";  // résumé.txt
  const std::string greek = "\xce\xb4\xce\xb5\xce\xb4\xce\xbf\xce\xbc\xce\xad\xce\xbd\xce\xb1/\xe6\x97\xa5.py";
  const std::string not_utf8 = "bad\xff.txt";  // its bytes, as gcloud sends them (hdrcharset=BINARY)
  std::ofstream(dir.path / resume) << "cv\n";
  fs::create_directories(dir.path / fs::path(greek).parent_path());
  std::ofstream(dir.path / greek) << "print()\n";
  std::ofstream(dir.path / not_utf8) << "x";
  fs::create_symlink(resume, dir.path / "link");

  auto bytes = WriteTarGz({{resume, dir.path / resume},
                           {greek, dir.path / greek},
                           {not_utf8, dir.path / not_utf8},
                           {"link", dir.path / "link"}});
  REQUIRE(bytes);
  auto entries = ListTarGz(*bytes, 1 << 20, 10);
  REQUIRE(entries);
  REQUIRE(entries->size() == 4);
  CHECK((*entries)[0].path == resume);
  CHECK((*entries)[0].size == 3);
  CHECK((*entries)[1].path == greek);
  CHECK((*entries)[2].path == not_utf8);
  CHECK((*entries)[3].path == "link");
}

}  // namespace
}  // namespace tputrain::archive
