#pragma once

// libarchive, opened when a build context is packed or listed instead of linked: it brings
// libxml2 and ICU among a dozen libraries, whose loading every command paid at start-up.

#include <archive.h>
#include <archive_entry.h>

#include "tputrain/core/result.h"

namespace tputrain::archive {

// The libarchive functions tputrain calls, resolved from its ABI (SONAME libarchive.so.13).
struct ArchiveLibrary {
  decltype(&::archive_entry_copy_stat) entry_copy_stat = nullptr;
  decltype(&::archive_entry_filetype) entry_filetype = nullptr;
  decltype(&::archive_entry_free) entry_free = nullptr;
  decltype(&::archive_entry_new) entry_new = nullptr;
  decltype(&::archive_entry_pathname) entry_pathname = nullptr;
  decltype(&::archive_entry_set_gid) entry_set_gid = nullptr;
  decltype(&::archive_entry_set_gname) entry_set_gname = nullptr;
  decltype(&::archive_entry_set_pathname) entry_set_pathname = nullptr;
  decltype(&::archive_entry_set_size) entry_set_size = nullptr;
  decltype(&::archive_entry_set_symlink) entry_set_symlink = nullptr;
  decltype(&::archive_entry_set_uid) entry_set_uid = nullptr;
  decltype(&::archive_entry_set_uname) entry_set_uname = nullptr;
  decltype(&::archive_error_string) error_string = nullptr;
  decltype(&::archive_free) free = nullptr;
  decltype(&::archive_read_data) read_data = nullptr;
  decltype(&::archive_read_new) read_new = nullptr;
  decltype(&::archive_read_next_header) read_next_header = nullptr;
  decltype(&::archive_read_open_memory) read_open_memory = nullptr;
  decltype(&::archive_read_support_filter_gzip) read_support_filter_gzip = nullptr;
  decltype(&::archive_read_support_format_tar) read_support_format_tar = nullptr;
  decltype(&::archive_write_add_filter_gzip) write_add_filter_gzip = nullptr;
  decltype(&::archive_write_close) write_close = nullptr;
  decltype(&::archive_write_data) write_data = nullptr;
  decltype(&::archive_write_header) write_header = nullptr;
  decltype(&::archive_write_new) write_new = nullptr;
  decltype(&::archive_write_open) write_open = nullptr;
  decltype(&::archive_write_set_bytes_in_last_block) write_set_bytes_in_last_block = nullptr;
  decltype(&::archive_write_set_format_pax_restricted) write_set_format_pax_restricted = nullptr;
};

// Opens libarchive once per process, from any thread; later calls return the same table. Fails,
// naming the library and the package that provides it, when it cannot be loaded.
core::Result<const ArchiveLibrary*> OpenArchive();

}  // namespace tputrain::archive
