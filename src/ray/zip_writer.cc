#include "zip_writer.h"

#include <array>

namespace tputrain::ray::internal {
namespace {

constexpr uint16_t kDosTime = 0;                        // 00:00:00
constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, the earliest ZIP date
constexpr uint16_t kUtf8Names = 0x0800;

void Put16(std::string& out, uint16_t value) {
  out += static_cast<char>(value & 0xff);
  out += static_cast<char>(value >> 8);
}

void Put32(std::string& out, uint32_t value) {
  Put16(out, static_cast<uint16_t>(value & 0xffff));
  Put16(out, static_cast<uint16_t>(value >> 16));
}

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

}  // namespace

uint32_t Crc32(std::string_view data) {
  static const std::array<uint32_t, 256> kTable = MakeCrcTable();
  uint32_t crc = 0xffffffffu;
  for (unsigned char byte : data) crc = kTable[(crc ^ byte) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

void ZipWriter::AddFile(std::string_view name, std::string_view data, uint32_t mode) {
  Add(name, data, (0100000u | (mode & 07777u)) << 16);
}

void ZipWriter::AddDirectory(std::string_view name) {
  Add(std::string(name) + "/", {}, ((040755u) << 16) | 0x10u);  // 0x10: the MS-DOS directory bit
}

void ZipWriter::Add(std::string_view name, std::string_view data, uint32_t external_attributes) {
  uint32_t offset = static_cast<uint32_t>(archive_.size());
  uint32_t crc = Crc32(data);
  auto size = static_cast<uint32_t>(data.size());
  auto name_length = static_cast<uint16_t>(name.size());

  Put32(archive_, 0x04034b50);  // local file header
  Put16(archive_, 20);
  Put16(archive_, kUtf8Names);
  Put16(archive_, 0);  // stored
  Put16(archive_, kDosTime);
  Put16(archive_, kDosDate);
  Put32(archive_, crc);
  Put32(archive_, size);
  Put32(archive_, size);
  Put16(archive_, name_length);
  Put16(archive_, 0);
  archive_ += name;
  archive_ += data;

  std::string& cd = central_directory_;
  Put32(cd, 0x02014b50);
  Put16(cd, (3 << 8) | 20);  // made by Unix, so the mode bits in the external attributes count
  Put16(cd, 20);
  Put16(cd, kUtf8Names);
  Put16(cd, 0);
  Put16(cd, kDosTime);
  Put16(cd, kDosDate);
  Put32(cd, crc);
  Put32(cd, size);
  Put32(cd, size);
  Put16(cd, name_length);
  Put16(cd, 0);  // extra
  Put16(cd, 0);  // comment
  Put16(cd, 0);  // disk
  Put16(cd, 0);  // internal attributes
  Put32(cd, external_attributes);
  Put32(cd, offset);
  cd += name;
  ++entries_;
}

std::string ZipWriter::Finish() {
  auto cd_offset = static_cast<uint32_t>(archive_.size());
  archive_ += central_directory_;
  Put32(archive_, 0x06054b50);  // end of central directory
  Put16(archive_, 0);
  Put16(archive_, 0);
  Put16(archive_, entries_);
  Put16(archive_, entries_);
  Put32(archive_, static_cast<uint32_t>(central_directory_.size()));
  Put32(archive_, cd_offset);
  Put16(archive_, 0);
  return std::move(archive_);
}

}  // namespace tputrain::ray::internal
