#pragma once

#include <cstddef>
#include <string_view>

#include "tputrain/core/result.h"

// The names tputrain puts into Google API URL paths, checked against the APIs' own patterns
// before any call (and under --dry-run): a name is never a path. Each failure is a usage error,
// one line naming `field` (the flag or argument the name came from).
namespace tputrain::gcp {

// Project ids: lowercase letters, digits and hyphens, a letter first, no hyphen last, at most 30
// characters; or a domain-scoped "example.com:my-project".
core::Status CheckProjectId(std::string_view field, std::string_view project);

// A region or a zone: "us-central1", "us-east5-b".
core::Status CheckLocation(std::string_view field, std::string_view location);

// A resource id as GKE clusters and node pools, TPU nodes and service accounts spell it
// (RFC 1035 labels): lowercase letters, digits and hyphens, a letter first, no hyphen last, at
// most `max_length` characters (40 for GKE clusters and node pools, 63 for TPU nodes).
core::Status CheckResourceId(std::string_view field, std::string_view id, size_t max_length);

// A Cloud Storage bucket name: 3-63 characters of lowercase letters, digits, '-', '_' and '.'
// (up to 222 with dots, 63 between them), a letter or digit at each end; not an IP address, not
// starting with "goog" and not containing "google" (Cloud Storage reserves them).
core::Status CheckBucketName(std::string_view field, std::string_view bucket);

// A service account's id (the part before '@'): as CheckResourceId, 6 to 30 characters.
core::Status CheckServiceAccountId(std::string_view field, std::string_view id);

// A service account's e-mail: ID@PROJECT.iam.gserviceaccount.com (or another domain), one '@',
// nothing that could be read as a path.
core::Status CheckServiceAccountEmail(std::string_view field, std::string_view email);

// An IAM role: roles/NAME, projects/P/roles/NAME or organizations/O/roles/NAME.
core::Status CheckRole(std::string_view field, std::string_view role);

// The APIs' length limits for CheckResourceId.
inline constexpr size_t kGkeNameLength = 40;      // GKE clusters and node pools
inline constexpr size_t kTpuNodeNameLength = 63;  // Cloud TPU nodes

}  // namespace tputrain::gcp
