#pragma once

#include "tputrain/workflow/provision_command.h"

// The plans of PlanProvision that need the root beyond its settings.
namespace tputrain::workflow {

// `iam bind-workload-identity`: the request checked, the project read, and which route this is
// said once (the two are often mixed up).
core::Result<ProvisionPlan> PlanWorkloadIdentity(Root& root, const WorkloadIdentityBinding& binding);

// `image build`: every flag first, then the settings they are checked against; the context is
// packed before any call, so that a bad one leaves nothing behind.
core::Result<ProvisionPlan> PlanImageBuild(Root& root, const ImageBuilding& building);

}  // namespace tputrain::workflow
