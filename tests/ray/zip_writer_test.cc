#include "ray/zip_writer.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "tputrain/ray/jobs_client.h"

namespace tputrain::ray {
namespace {

uint32_t Read32(const std::string& data, size_t at) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(data[at + i]);
  return value;
}

uint16_t Read16(const std::string& data, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(data[at]) | (static_cast<unsigned char>(data[at + 1]) << 8));
}

}  // namespace

TEST_CASE("CRC-32 matches the standard check value") {
  CHECK(internal::Crc32("123456789") == 0xCBF43926u);
  CHECK(internal::Crc32("") == 0u);
}

TEST_CASE("a stored zip: local headers, data in the clear, a central directory that points back") {
  internal::ZipWriter zip;
  zip.AddDirectory("d");
  zip.AddFile("d/a.txt", "hello", 0644);
  std::string archive = zip.Finish();
  CHECK(Read32(archive, 0) == 0x04034b50u);
  CHECK(Read16(archive, 8) == 0);  // stored
  CHECK(archive.find("hello") != std::string::npos);
  size_t end = archive.size() - 22;
  REQUIRE(Read32(archive, end) == 0x06054b50u);
  CHECK(Read16(archive, end + 10) == 2);
  size_t cd = Read32(archive, end + 16);
  REQUIRE(Read32(archive, cd) == 0x02014b50u);
  CHECK(archive.substr(cd + 46, 2) == "d/");
  size_t second = cd + 46 + 2;
  CHECK(Read32(archive, second + 16) == internal::Crc32("hello"));
  CHECK(Read32(archive, second + 38) >> 16 == 0100644u);
  size_t local = Read32(archive, second + 42);
  CHECK(archive.substr(local + 30, 7) == "d/a.txt");
}

TEST_CASE("a working dir's package name depends only on its content") {
  std::string dir = "/tmp/tputrain-zip-test-" + std::to_string(getpid());
  std::filesystem::create_directories(dir + "/sub");
  std::filesystem::create_directories(dir + "/.git");
  std::ofstream(dir + "/sub/x.py") << "print(1)\n";
  std::ofstream(dir + "/.git/HEAD") << "ref\n";
  auto first = PackageWorkingDir(dir);
  REQUIRE(first);
  CHECK(first->name.starts_with("_ray_pkg_"));
  CHECK(first->name.size() == std::string("_ray_pkg_").size() + 40 + 4);
  CHECK(first->archive.find(".git") == std::string::npos);
  std::filesystem::last_write_time(dir + "/sub/x.py", std::filesystem::file_time_type::clock::now());
  CHECK(PackageWorkingDir(dir)->name == first->name);
  std::ofstream(dir + "/sub/x.py") << "print(2)\n";
  CHECK(PackageWorkingDir(dir)->name != first->name);
  std::filesystem::remove_all(dir);

  auto missing = PackageWorkingDir(dir);
  REQUIRE_FALSE(missing);
  CHECK(core::IsUsageError(missing.error()));
}

}  // namespace tputrain::ray
