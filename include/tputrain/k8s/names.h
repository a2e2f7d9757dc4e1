#pragma once

#include <string_view>

#include "tputrain/core/result.h"

// Kubernetes names, checked as the API server checks them, before they go into a URL path, a
// workload identity member or a manifest. Each failure is one usage line naming `field`.
namespace tputrain::k8s {

// A namespace (or a Service's name): an RFC 1123 label, 1-63 lowercase letters, digits and '-',
// a letter or digit at each end.
core::Status CheckNamespace(std::string_view field, std::string_view name);

// Most objects' names (a ServiceAccount, a RayCluster): an RFC 1123 subdomain, 1-253 characters,
// dot-separated labels as above.
core::Status CheckObjectName(std::string_view field, std::string_view name);

}  // namespace tputrain::k8s
