#pragma once

// Each stack file section to its step's request, checked as the command checks its flags
// (private to the workflow module).
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stack_yaml.h"
#include "tputrain/workflow/stack.h"

namespace tputrain::workflow::internal {

// One map of the file, where it is, and how its failures are said.
class Section {
 public:
  Section(const LocatedJson& document, const std::string& file, std::string path);

  const std::string& path() const { return path_; }
  int line() const { return document_.LineOf(path_); }
  const nlohmann::json& value() const { return value_; }
  bool Has(const std::string& key) const { return value_.contains(key); }
  Section Child(const std::string& key) const;
  Section Item(size_t index) const;

  std::string Str(const std::string& key, const std::string& fallback = "") const;
  bool Bool(const std::string& key) const;
  // An integer key as its flag takes it: as typed ("3").
  std::string Number(const std::string& key, const std::string& fallback = "") const;
  std::vector<std::string> Strings(const std::string& key) const;

  // "FILE:LINE: PATH.KEY: message".
  core::Error At(const std::string& key, const std::string& message) const;
  // A command's own failure, said where the file says it: its "--flag: " or "NAME: " becomes
  // the key's path ("--num-nodes" is num-nodes here; NAME is name).
  core::Error Reworded(const core::Error& error) const;

 private:
  const LocatedJson& document_;
  const std::string& file_;
  std::string path_;
  nlohmann::json value_;
};

// The stack's settings every section is resolved against.
struct StackSettings {
  std::string project;
  std::string location;
  std::string cluster;  // the stack's cluster, "" when it has none
  std::string bucket;
  std::string registry;
  std::string dir;  // of the stack file: relative paths start there
  // The stack's TPU VMs by name, each with the zone it is made in ("" when zones chooses).
  std::map<std::string, std::string> tpu_vm_zones;
  const StackLoadContext* context = nullptr;
};

// `path` as the file means it: relative to the stack file's directory.
std::string Relative(const StackSettings& settings, const std::string& path);
// The capacity keys of a section (capacity, spot, reservation, max-run-duration), as the
// commands' capacity flags.
CapacityFlags CapacityOf(const Section& section);
// A step of `kind` said by `section`, with the `needs` it gives.
StackStep StepAt(const Section& section, std::string id, StepKind kind);

core::Result<StackStep> ClusterStep(const Section& section, const StackSettings& settings,
                                    std::vector<StackStep>& pools);
core::Result<std::vector<StackStep>> NodePoolSteps(const Section& section, const StackSettings& settings);
core::Result<StackStep> BucketStep(const Section& section);
core::Result<StackStep> ServiceAccountStep(const Section& section, const StackSettings& settings);
core::Result<StackStep> IdentityStep(const Section& section, const StackSettings& settings);
core::Result<StackStep> RegistryStep(const Section& section, const StackSettings& settings);
core::Result<StackStep> ImageStep(const Section& section, const StackSettings& settings);
core::Result<StackStep> ApplyStep(const Section& section, const StackSettings& settings);
core::Result<StackStep> WorkloadStep(const Section& section, const StackSettings& settings);
// tpu-vms[i]: tpu-vm create NAME, checked as its flags are (stack_sections_tpu_vm.cc).
core::Result<StackStep> TpuVmStep(const Section& section, const StackSettings& settings);
// workload.job: job submit on a TPU VM's Ray, as its flags are checked; `tpu-vm` of submit.
core::Status JobWorkload(const Section& job, const StackSettings& settings, StackWorkload& workload);
core::Result<gcp::tpu::NodeRef> TpuVmTargetOf(const Section& section, const StackSettings& settings);
// workload.serve into `workload` (its cluster and namespace set), as `serve up` checks its flags.
core::Status ServeWorkload(const Section& serve, const StackSettings& settings, StackWorkload& workload);

// A stable fingerprint of `value` (FNV-1a over its compact JSON), as 16 hex digits.
std::string Fingerprint(const nlohmann::json& value);

}  // namespace tputrain::workflow::internal
