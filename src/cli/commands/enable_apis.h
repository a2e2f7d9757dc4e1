#pragma once

#include "commands/provision_common.h"

namespace tputrain::cli {

// body(env); with --enable-apis, an API the project lacks (SERVICE_DISABLED) is enabled and body
// run again, once per API: creates adopt what the first attempt made.
core::Result<std::vector<workflow::Outcome>> RunEnablingApis(Context& context, workflow::ProvisionEnv& env,
                                                             const ProvisionBody& body, bool enable_apis);

}  // namespace tputrain::cli
