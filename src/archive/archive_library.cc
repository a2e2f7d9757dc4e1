#include "archive_library.h"

#include "tputrain/core/shared_library.h"

namespace tputrain::archive {
namespace {

core::Result<ArchiveLibrary> Load() {
  auto library = core::SharedLibrary::Open("libarchive.so.13", "libarchive13");
  if (!library) return core::Fail(library.error());
  ArchiveLibrary api;
  library->Resolve("archive_entry_copy_stat", api.entry_copy_stat);
  library->Resolve("archive_entry_filetype", api.entry_filetype);
  library->Resolve("archive_entry_free", api.entry_free);
  library->Resolve("archive_entry_new", api.entry_new);
  library->Resolve("archive_entry_pathname", api.entry_pathname);
  library->Resolve("archive_entry_set_gid", api.entry_set_gid);
  library->Resolve("archive_entry_set_gname", api.entry_set_gname);
  library->Resolve("archive_entry_set_pathname", api.entry_set_pathname);
  library->Resolve("archive_entry_set_size", api.entry_set_size);
  library->Resolve("archive_entry_set_symlink", api.entry_set_symlink);
  library->Resolve("archive_entry_set_uid", api.entry_set_uid);
  library->Resolve("archive_entry_set_uname", api.entry_set_uname);
  library->Resolve("archive_error_string", api.error_string);
  library->Resolve("archive_free", api.free);
  library->Resolve("archive_read_data", api.read_data);
  library->Resolve("archive_read_new", api.read_new);
  library->Resolve("archive_read_next_header", api.read_next_header);
  library->Resolve("archive_read_open_memory", api.read_open_memory);
  library->Resolve("archive_read_support_filter_gzip", api.read_support_filter_gzip);
  library->Resolve("archive_read_support_format_tar", api.read_support_format_tar);
  library->Resolve("archive_write_add_filter_gzip", api.write_add_filter_gzip);
  library->Resolve("archive_write_close", api.write_close);
  library->Resolve("archive_write_data", api.write_data);
  library->Resolve("archive_write_header", api.write_header);
  library->Resolve("archive_write_new", api.write_new);
  library->Resolve("archive_write_open", api.write_open);
  library->Resolve("archive_write_set_bytes_in_last_block", api.write_set_bytes_in_last_block);
  library->Resolve("archive_write_set_format_pax_restricted", api.write_set_format_pax_restricted);
  if (auto complete = library->Complete("libarchive 3.4"); !complete) return core::Fail(complete.error());
  return api;
}

}  // namespace

core::Result<const ArchiveLibrary*> OpenArchive() { return core::LoadOnce<ArchiveLibrary>(Load); }

}  // namespace tputrain::archive
