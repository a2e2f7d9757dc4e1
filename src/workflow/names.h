#pragma once

// The names a command is given for what the workflow makes or reaches, checked before any call
// as the API that takes them checks them: one usage line naming `field` and what was expected.
#include <string_view>

#include "tputrain/core/result.h"

namespace tputrain::workflow {

// A GKE node pool's (or cluster's) name: a lowercase RFC 1035 label of at most 40 characters.
core::Status CheckGkeName(std::string_view field, std::string_view name);
// A Cloud Storage bucket's name (without gs://).
core::Status CheckBucketName(std::string_view field, std::string_view bucket);
// A Kubernetes namespace's name, or a container's (both RFC 1123 labels).
core::Status CheckKubeLabelName(std::string_view field, std::string_view name);
// Most Kubernetes objects' names (a Service's as serve generate takes it): an RFC 1123 subdomain.
core::Status CheckKubeObjectName(std::string_view field, std::string_view name);

}  // namespace tputrain::workflow
