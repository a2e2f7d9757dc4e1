#pragma once

#include <memory>
#include <string>

#include "tputrain/core/clock.h"
#include "tputrain/core/env.h"
#include "tputrain/core/result.h"
#include "tputrain/gcp/auth/token_source.h"
#include "tputrain/http/transport.h"

namespace tputrain::gcp::auth {

// "http://<host>/computeMetadata/v1/": GCE_METADATA_HOST, else the legacy GCE_METADATA_ROOT,
// else metadata.google.internal, as google-auth reads them.
std::string MetadataRoot(const core::Env& env);
// The host alone (no port), which the metadata transport may reach over plain http.
std::string MetadataHost(const core::Env& env);

// The default service account's token from the metadata server (GCE, GKE workload identity,
// TPU VMs, Cloud Build), every request with "Metadata-Flavor: Google". The account e-mail is
// looked up on demand (auth status). `transport` must allow plain http to the metadata host.
std::unique_ptr<TokenSource> MetadataServerSource(const core::Env& env, http::Transport& transport, core::Clock& clock);

}  // namespace tputrain::gcp::auth
