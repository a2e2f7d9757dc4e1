#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tputrain/core/result.h"

namespace tputrain::archive {

// One file of a build context: its path inside the archive ("Dockerfile", "src/train.py") and
// where it is read from. Directories are implied by the paths, as docker and Cloud Build expect.
struct ContextFile {
  std::string archive_path;
  std::filesystem::path source;
};

// Writes the files as a gzip-compressed POSIX (pax) tar, in the order given, with each file's
// mode and modification time. Symbolic links are stored as links, never followed.
core::Result<std::string> WriteTarGz(const std::vector<ContextFile>& files);

struct ArchiveEntry {
  std::string path;
  std::uint64_t size = 0;
  bool regular_file = false;
};

// Lists a tar.gz held in memory, refusing archives that are not gzip-compressed tar, that expand
// past `max_expanded_bytes`, or that hold more than `max_entries` entries (a decompression bomb
// is refused, not unpacked).
core::Result<std::vector<ArchiveEntry>> ListTarGz(const std::string& bytes, std::uint64_t max_expanded_bytes,
                                                  std::size_t max_entries);

}  // namespace tputrain::archive
