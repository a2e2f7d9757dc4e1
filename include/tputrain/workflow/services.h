#pragma once

#include <string>
#include <vector>

#include "tputrain/core/result.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow {

// One API of a project and what enabling it did.
struct ServiceChange {
  std::string service;  // "container.googleapis.com"
  bool was_enabled = false;
};

// Enables those of `services` ("container" or "container.googleapis.com") the project does not
// have yet, 20 to a call as Service Usage takes them, and waits for each operation. APIs are
// never ledgered: cleanup does not disable them, as no tutorial does. Under --dry-run the enable
// request is printed and nothing is read.
core::Result<std::vector<ServiceChange>> EnableServices(ProvisionEnv& env, const std::string& project,
                                                        const std::vector<std::string>& services);

}  // namespace tputrain::workflow
