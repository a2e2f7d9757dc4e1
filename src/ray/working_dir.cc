#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "tputrain/core/file.h"
#include "tputrain/ray/jobs_client.h"
#include "zip_writer.h"

namespace tputrain::ray {
namespace {

namespace fs = std::filesystem;

// Ray's HTTP body limit for a package upload.
constexpr size_t kMaxPackageBytes = 100u * 1024 * 1024;

core::Error TooLarge(const std::string& dir) {
  return core::Error::Usage("--working-dir " + dir + ": the zipped directory exceeds Ray's 100 MiB package limit");
}

// Entries in sorted order, so that the archive (and its name) depends only on the content.
core::Result<std::string> ZipDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return core::Fail(core::Error::Usage("--working-dir " + dir + ": not a directory"));
  std::vector<fs::path> paths;
  auto options = fs::directory_options::skip_permission_denied;
  for (auto it = fs::recursive_directory_iterator(dir, options, ec); !ec && it != fs::end(it); it.increment(ec)) {
    // .git holds history, not the job's code; Ray's packager skips it through .gitignore
    // conventions in practice, and it is often the largest thing in a checkout.
    if (it->path().filename() == ".git" || it->path().filename() == "__pycache__") {
      it.disable_recursion_pending();
      continue;
    }
    paths.push_back(it->path());
  }
  if (ec) return core::Fail(core::Error::Usage("--working-dir " + dir + ": " + ec.message()));
  std::sort(paths.begin(), paths.end());
  internal::ZipWriter zip;
  for (const auto& path : paths) {
    std::string name = fs::relative(path, dir, ec).generic_string();
    if (ec) return core::Fail(core::Error::Usage("--working-dir " + dir + ": " + ec.message()));
    auto status = fs::status(path, ec);
    if (fs::is_directory(status)) {
      zip.AddDirectory(name);
    } else if (fs::is_regular_file(status)) {
      // One file beyond the package limit makes the package too large, whatever it compresses to.
      auto data = core::ReadFile(path.string(), "--working-dir", kMaxPackageBytes);
      if (!data && data.error().reason == core::kFileTooLarge) return core::Fail(TooLarge(dir));
      if (!data) return core::Fail(data.error());
      zip.AddFile(name, *data, static_cast<uint32_t>(status.permissions()));
    }
    if (zip.size() > kMaxPackageBytes) return core::Fail(TooLarge(dir));
  }
  std::string archive = zip.Finish();
  if (archive.size() > kMaxPackageBytes) return core::Fail(TooLarge(dir));
  return archive;
}

std::string Sha1Hex(const std::string& data) {
  std::array<unsigned char, SHA_DIGEST_LENGTH> digest{};
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : digest) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 0xf];
  }
  return hex;
}

}  // namespace

core::Result<WorkingDirPackage> PackageWorkingDir(const std::string& dir) {
  auto archive = ZipDirectory(dir);
  if (!archive) return core::Fail(archive.error());
  return WorkingDirPackage{"_ray_pkg_" + Sha1Hex(*archive) + ".zip", std::move(*archive)};
}

// The package is named by the SHA-1 of the zip, as Ray names an uploaded .zip file: content
// addressed, so an unchanged directory is uploaded once and reused across jobs.
core::Result<std::string> JobsClient::UploadWorkingDir(const std::string& dir) {
  auto package = PackageWorkingDir(dir);
  if (!package) return core::Fail(package.error());
  const std::string& name = package->name;
  std::string path = "/api/packages/gcs/" + name;
  // The GET also pins the package for ten minutes, so it outlives the gap until the submit.
  auto exists = Call(Make("GET", path), "ray.packages.get");
  if (!exists) return core::Fail(exists.error());
  if (exists->status == 404) {
    http::Request put = Make("PUT", path);
    put.body = std::move(package->archive);
    put.headers.emplace_back("Content-Type", "application/octet-stream");
    put.idempotent = true;  // same name, same bytes
    auto uploaded = Call(std::move(put), "ray.packages.put");
    if (!uploaded) return core::Fail(uploaded.error());
    if (!uploaded->ok()) return core::Fail(ErrorFromRay(*uploaded, "ray.packages.put"));
  } else if (!exists->ok()) {
    return core::Fail(ErrorFromRay(*exists, "ray.packages.get"));
  }
  return "gcs://" + name;
}

}  // namespace tputrain::ray
