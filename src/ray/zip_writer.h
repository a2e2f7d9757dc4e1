#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// A ZIP archive with stored (uncompressed) entries, as Ray's own packager writes them. Fixed
// timestamps, so the same tree always gives the same bytes and hence the same package name.
namespace tputrain::ray::internal {

class ZipWriter {
 public:
  void AddFile(std::string_view name, std::string_view data, uint32_t mode);
  void AddDirectory(std::string_view name);  // `name` without the trailing slash
  std::string Finish();                      // the whole archive; the writer is spent
  size_t size() const { return archive_.size(); }

 private:
  void Add(std::string_view name, std::string_view data, uint32_t external_attributes);

  std::string archive_;
  std::string central_directory_;
  uint16_t entries_ = 0;
};

uint32_t Crc32(std::string_view data);

}  // namespace tputrain::ray::internal
