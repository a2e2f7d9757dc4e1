#include "flags/job_submit_flags.h"

namespace tputrain::cli {

void AddSubmitFlags(CLI::App* submit, workflow::JobSubmitRequest& flags) {
  submit->add_option("command", flags.command, "The entrypoint, after --: COMMAND ARGS...");
  submit->add_option("--submission-id", flags.submission_id, "Id for the job (default: generated raysubmit_...)");
  submit->add_option("--runtime-env-json", flags.runtime_env_json, "runtime_env as a JSON object");
  submit->add_option("--runtime-env", flags.runtime_env_file, "runtime_env from a YAML or JSON file")
      ->type_name("FILE");
  submit
      ->add_option("--working-dir", flags.working_dir,
                   "Local directory to zip and upload as the job's working_dir (or a remote URI)")
      ->type_name("DIR");
  submit->add_option("--metadata-json", flags.metadata_json, "Job metadata as a JSON object of strings");
  submit->add_option("--entrypoint-num-cpus", flags.num_cpus, "CPUs reserved for the entrypoint");
  submit->add_option("--entrypoint-num-gpus", flags.num_gpus, "GPUs reserved for the entrypoint");
  submit->add_option("--entrypoint-memory", flags.memory, "Memory in bytes reserved for the entrypoint (Ray >= 2.8)");
  submit->add_option("--entrypoint-resources", flags.resources_json,
                     "Custom resources for the entrypoint as JSON, e.g. '{\"TPU\": 4}'");
}

}  // namespace tputrain::cli
