#pragma once

#include <string>

#include "tputrain/core/result.h"
#include "tputrain/k8s/apply.h"
#include "tputrain/workflow/apply_recorded.h"

namespace tputrain::workflow {

// The annotation that makes GKE's metadata server hand a KSA's pods the tokens of a Google
// service account (the seeds' workload-identity route: `kubectl annotate serviceaccount KSA
// iam.gke.io/gcp-service-account=GSA`).
inline constexpr char kGsaAnnotation[] = "iam.gke.io/gcp-service-account";

// Applies the ServiceAccount NS/NAME with that annotation (server-side apply, so it is created
// when missing and other fields are left alone), recorded in the run ledger.
core::Result<k8s::ApplyResult> AnnotateServiceAccount(RecordedApplyEnv& env, const std::string& ns,
                                                      const std::string& name, const std::string& gsa, bool dry_run);

}  // namespace tputrain::workflow
