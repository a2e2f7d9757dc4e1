#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/gcp/serviceusage/client.h"
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

// --enable-apis: when `failure` is Google's SERVICE_DISABLED for an API not in `enabled` yet,
// enables it (in the project its consumer "projects/NUMBER" names, else `project`), adds it to
// `enabled` and answers true: the command is to run again (its creates adopt what the first
// attempt made). False for any other failure, or an API already tried.
core::Result<bool> EnableApiFor(ProvisionEnv& env, const core::Error& failure, const std::string& project,
                                std::set<std::string>& enabled);

class Root;

// `tputrain services enable SERVICE...` as the command gives it.
struct ServicesEnableRequest {
  std::vector<std::string> services;
  std::string timeout;  // core::ParseDuration's grammar; empty: no limit
  bool dry_run = false;
};

struct ServicesEnabled {
  std::vector<ServiceChange> changes;  // none under --dry-run
  std::vector<http::Request> planned;  // under --dry-run: the requests it would send
};

// The names and --timeout checked, the project from the settings, then EnableServices through
// the root's Google APIs (none under --dry-run, which needs no credentials and sends nothing).
core::Result<ServicesEnabled> EnableServices(Root& root, const ServicesEnableRequest& request);
// `services enable --format json`: each service and its action ("enabled", "already enabled").
nlohmann::json ToJson(const std::vector<ServiceChange>& changes);

// How `services list` says a service stands: ENABLED or DISABLED.
std::string_view ServiceStateName(const gcp::serviceusage::Service& service);
// `services list --format json`: each service's name, title and state.
nlohmann::json ToJson(const std::vector<gcp::serviceusage::Service>& services);

}  // namespace tputrain::workflow
