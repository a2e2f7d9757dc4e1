// tar.gz through libarchive (Debian's libarchive13): the formats are libarchive's, this file only
// feeds it files and bounds what it expands.
#include "tputrain/archive/tar_gz.h"

#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>

#include "archive_library.h"

namespace tputrain::archive {
namespace {

struct ArchiveCloser {
  const ArchiveLibrary* api;
  void operator()(struct archive* handle) const { api->free(handle); }
};
using ArchivePtr = std::unique_ptr<struct archive, ArchiveCloser>;

struct EntryCloser {
  const ArchiveLibrary* api;
  void operator()(archive_entry* entry) const { api->entry_free(entry); }
};
using EntryPtr = std::unique_ptr<archive_entry, EntryCloser>;

// Names are UTF-8 (as gcloud packs them: pax `path` records, which the format defines as UTF-8),
// but libarchive converts them from and to the locale's charset, and a process that never calls
// setlocale is in "C", where "résumé.txt" cannot be translated: writing fails and reading warns.
// This thread works in C.UTF-8 while it packs or lists; the process's locale is left alone.
class Utf8NamesInThisThread {
 public:
  Utf8NamesInThisThread() : utf8_(newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr))) {
    if (utf8_ != static_cast<locale_t>(nullptr)) previous_ = uselocale(utf8_);
  }
  ~Utf8NamesInThisThread() {
    if (utf8_ == static_cast<locale_t>(nullptr)) return;
    uselocale(previous_);
    freelocale(utf8_);
  }
  Utf8NamesInThisThread(const Utf8NamesInThisThread&) = delete;
  Utf8NamesInThisThread& operator=(const Utf8NamesInThisThread&) = delete;

 private:
  locale_t utf8_;
  locale_t previous_ = static_cast<locale_t>(nullptr);
};

core::Error ArchiveError(const ArchiveLibrary& api, struct archive* handle, const std::string& what) {
  const char* detail = api.error_string(handle);
  return core::Error::Usage(what + (detail != nullptr ? std::string(": ") + detail : std::string()));
}

// libarchive's write callbacks: append to a string.
la_ssize_t AppendToString(struct archive* /*handle*/, void* client, const void* buffer, size_t length) {
  static_cast<std::string*>(client)->append(static_cast<const char*>(buffer), length);
  return static_cast<la_ssize_t>(length);
}

core::Result<bool> AddFile(const ArchiveLibrary& api, struct archive* writer, const ContextFile& file) {
  struct stat info {};
  if (lstat(file.source.c_str(), &info) != 0) {
    return core::Fail(core::Error::Usage(file.source.string() + ": cannot be read"));
  }
  EntryPtr entry(api.entry_new(), EntryCloser{&api});
  api.entry_set_pathname(entry.get(), file.archive_path.c_str());
  api.entry_copy_stat(entry.get(), &info);
  // Ownership and device numbers of this machine mean nothing inside a build.
  api.entry_set_uid(entry.get(), 0);
  api.entry_set_gid(entry.get(), 0);
  api.entry_set_uname(entry.get(), "");
  api.entry_set_gname(entry.get(), "");
  std::string link_target;
  if (S_ISLNK(info.st_mode)) {
    link_target.resize(4096);
    const ssize_t length = readlink(file.source.c_str(), link_target.data(), link_target.size());
    if (length < 0) return core::Fail(core::Error::Usage(file.source.string() + ": cannot read the link"));
    link_target.resize(static_cast<std::size_t>(length));
    api.entry_set_symlink(entry.get(), link_target.c_str());
    api.entry_set_size(entry.get(), 0);
  } else if (!S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode)) {
    return core::Fail(core::Error::Usage(file.source.string() + ": not a regular file, directory or link"));
  }
  // ARCHIVE_WARN: a name that is not UTF-8 goes as its bytes (pax hdrcharset=BINARY), as gcloud
  // (Python's tarfile) packs it too; the entry is written either way.
  if (api.write_header(writer, entry.get()) < ARCHIVE_WARN) {
    return core::Fail(ArchiveError(api, writer, file.archive_path));
  }
  if (S_ISREG(info.st_mode)) {
    std::ifstream in(file.source, std::ios::binary);
    if (!in) return core::Fail(core::Error::Usage(file.source.string() + ": cannot be read"));
    char buffer[64 * 1024];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
      if (api.write_data(writer, buffer, static_cast<size_t>(in.gcount())) < 0) {
        return core::Fail(ArchiveError(api, writer, file.archive_path));
      }
    }
  }
  return true;
}

}  // namespace

core::Result<std::string> WriteTarGz(const std::vector<ContextFile>& files) {
  auto opened = OpenArchive();
  if (!opened) return core::Fail(opened.error());
  const ArchiveLibrary& api = **opened;
  const Utf8NamesInThisThread utf8_names;  // before the writer: it reads the charset once
  std::string out;
  ArchivePtr writer(api.write_new(), ArchiveCloser{&api});
  api.write_set_format_pax_restricted(writer.get());
  api.write_add_filter_gzip(writer.get());
  // No padding to 10 KiB blocks beyond what tar requires: the upload is what it holds.
  api.write_set_bytes_in_last_block(writer.get(), 1);
  if (api.write_open(writer.get(), &out, nullptr, AppendToString, nullptr) != ARCHIVE_OK) {
    return core::Fail(ArchiveError(api, writer.get(), "tar.gz"));
  }
  for (const auto& file : files) {
    auto added = AddFile(api, writer.get(), file);
    if (!added) return core::Fail(added.error());
  }
  if (api.write_close(writer.get()) != ARCHIVE_OK) return core::Fail(ArchiveError(api, writer.get(), "tar.gz"));
  return out;
}

core::Result<std::vector<ArchiveEntry>> ListTarGz(const std::string& bytes, std::uint64_t max_expanded_bytes,
                                                  std::size_t max_entries) {
  auto opened = OpenArchive();
  if (!opened) return core::Fail(opened.error());
  const ArchiveLibrary& api = **opened;
  const Utf8NamesInThisThread utf8_names;
  ArchivePtr reader(api.read_new(), ArchiveCloser{&api});
  api.read_support_filter_gzip(reader.get());
  api.read_support_format_tar(reader.get());
  if (api.read_open_memory(reader.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return core::Fail(ArchiveError(api, reader.get(), "not a gzip-compressed tar archive"));
  }
  std::vector<ArchiveEntry> entries;
  std::uint64_t expanded = 0;
  archive_entry* entry = nullptr;
  while (true) {
    const int status = api.read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    // ARCHIVE_WARN: a name that is not UTF-8 (hdrcharset=BINARY); its bytes are the path.
    if (status < ARCHIVE_WARN) return core::Fail(ArchiveError(api, reader.get(), "not a valid tar.gz archive"));
    if (entries.size() >= max_entries) {
      return core::Fail(core::Error::Usage("the archive holds more than " + std::to_string(max_entries) + " entries"));
    }
    ArchiveEntry listed;
    listed.path = api.entry_pathname(entry) != nullptr ? api.entry_pathname(entry) : "";
    listed.regular_file = api.entry_filetype(entry) == AE_IFREG;
    // Read the data rather than trusting the header's size: the bound is on what gunzip yields.
    char buffer[64 * 1024];
    la_ssize_t read = 0;
    while ((read = api.read_data(reader.get(), buffer, sizeof buffer)) > 0) {
      listed.size += static_cast<std::uint64_t>(read);
      expanded += static_cast<std::uint64_t>(read);
      if (expanded > max_expanded_bytes) {
        return core::Fail(
            core::Error::Usage("the archive expands past " + std::to_string(max_expanded_bytes) + " bytes"));
      }
    }
    if (read < 0) return core::Fail(ArchiveError(api, reader.get(), "not a valid tar.gz archive"));
    entries.push_back(std::move(listed));
  }
  return entries;
}

}  // namespace tputrain::archive
