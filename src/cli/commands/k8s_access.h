#pragma once

#include <CLI/CLI.hpp>

#include "tputrain/workflow/kube_access.h"

// The flags of how commands reach a Kubernetes cluster (what they mean: workflow/kube_access.h),
// and of the RayCluster route for `tputrain job ... --raycluster NAME`.
namespace tputrain::cli {

using workflow::KubeAccessFlags;
using workflow::RayClusterFlags;

// --cluster, --kubeconfig, --context, -n/--namespace, --insecure-skip-tls-verify
void AddKubeAccessFlags(CLI::App& command, KubeAccessFlags& flags);

// --raycluster NAME plus the kubeconfig flags (--kubeconfig, --context, -n).
void AddRayClusterFlags(CLI::App& command, RayClusterFlags& flags);

}  // namespace tputrain::cli
