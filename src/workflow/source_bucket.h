#pragma once

// The project's Cloud Build source bucket (PROJECT_cloudbuild) at cleanup: the project's, shared
// by gcloud builds submit and every run (private to the workflow module).
#include <string>

#include "tputrain/core/result.h"
#include "tputrain/workflow/provision.h"

namespace tputrain::workflow::internal {

// True for the bucket gcloud stages `builds submit` sources in for `project` (SourceBucketOf).
bool IsSourceBucket(const std::string& bucket, const std::string& project);

// A run owns the tarballs it uploaded (its `build` entries, deleted in an earlier tier), never
// the bucket's other objects: the bucket is deleted only when it holds none, never with objects
// in it (Google refuses to delete a bucket that is not empty, so one uploaded meanwhile keeps
// it too). A bucket that holds others' objects is kept, said so with their number, and its
// ledger entry stops being owned (a later cleanup lists it as kept; --force looks again) once
// none of the run's own tarballs is left in it; one that holds only the run's own tarballs
// (their delete failed) is an error, so that cleanup is run again.
core::Result<Outcome> DeleteSourceBucket(ProvisionEnv& env, const std::string& bucket);

}  // namespace tputrain::workflow::internal
