#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/workflow/kube_access.h"
#include "tputrain/workflow/provision.h"
#include "tputrain/workflow/provision_requests.h"

// `tputrain iam bind-workload-identity`: a Kubernetes service account's pods given a Google role.
namespace tputrain::workflow {

class Root;

// The binding `resolved` asks for in `project`, added; with annotate_ksa, then the KSA annotated
// with its Google service account on the cluster `access` reaches, recorded in `env`'s run (a
// server dry run under --dry-run). The outcomes in that order.
core::Result<std::vector<Outcome>> BindWorkloadIdentity(Root& root, ProvisionEnv& env, const std::string& project,
                                                        const WorkloadIdentityRequest::Resolved& resolved,
                                                        const KubeAccessFlags& access);

}  // namespace tputrain::workflow
