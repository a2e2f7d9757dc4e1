#pragma once

#include <string>

#include "tputrain/cli/context.h"
#include "tputrain/core/result.h"

namespace tputrain::cli {

// `cluster describe NAME`: the cluster as the Container API answers it.
core::Result<int> RunClusterDescribe(const std::string& name, Context& context);
// `cluster list`: the configured project's clusters in the configured location (or every one).
core::Result<int> RunClusterList(Context& context);
// `cluster get-credentials NAME`: a kubeconfig entry for the cluster (gcloud's, or a token exec).
core::Result<int> RunGetCredentials(const std::string& name, const std::string& kubeconfig, bool token_exec,
                                    Context& context);

}  // namespace tputrain::cli
