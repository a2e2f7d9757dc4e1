#include "ksa_annotation.h"

namespace tputrain::workflow {

core::Result<k8s::ApplyResult> AnnotateServiceAccount(RecordedApplyEnv& env, const std::string& ns,
                                                      const std::string& name, const std::string& gsa, bool dry_run) {
  k8s::Object account;
  account.api_version = "v1";
  account.kind = "ServiceAccount";
  account.name = name;
  account.ns = ns;
  account.source = "--ksa " + ns + "/" + name;
  account.json = {{"apiVersion", "v1"},
                  {"kind", "ServiceAccount"},
                  {"metadata", {{"name", name}, {"namespace", ns}, {"annotations", {{kGsaAnnotation, gsa}}}}}};
  k8s::ApplyOptions options;
  options.ns = ns;
  options.dry_run = dry_run;
  // A field manager of its own: server-side apply drops the fields a manager stops sending, and
  // serve up (manager "tputrain") applies the same account from the Saxml template, without the
  // annotation; under one manager that apply would take the annotation away again.
  options.field_manager = "tputrain-iam";
  auto applied = ApplyRecorded(env, {account}, options);
  if (!applied) return core::Fail(applied.error());
  if (applied->empty())
    return core::Fail(core::Error::Internal("applying ServiceAccount " + name + " returned nothing"));
  return applied->front();
}

}  // namespace tputrain::workflow
