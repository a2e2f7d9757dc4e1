#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tputrain/state/ledger.h"

// Where the resource a run ledger entry names is, read back from the keys the workflow writes
// (API paths, ACCESS|apiVersion|Kind|namespace|name, TARGET/RESOURCE|ROLE|MEMBER, ...) and the
// entry's details: its short name and its place, as gcloud and kubectl list theirs.
namespace tputrain::workflow {

struct EntryPlace {
  std::string name;
  // A zone or region ("global" for global resources); for Kubernetes objects, served models and
  // Ray jobs on a cluster the cluster (a kubeconfig's context); for a Ray job its address or TPU
  // VM; for an IAM member the resource its role is on ("bucket B"); "-" when unknown.
  std::string location;
};

// `key` is the ledger name of a `kind` entry, `details` its ledger details (or an outcome's; may be
// empty: the key alone then says what it can), `fallback` the name to give when neither does.
EntryPlace PlaceOf(state::ResourceKind kind, const std::string& key, const nlohmann::json& details,
                   std::string_view fallback = "");

// NAME@PROJECT.iam.gserviceaccount.com → NAME@PROJECT: the project still says which.
std::string ShortEmail(const std::string& email);

}  // namespace tputrain::workflow
