#include "commands/serve_bucket.h"

#include "tputrain/workflow/root.h"
#include "tputrain/workflow/serve_bucket.h"
#include "tputrain/workflow/template_values.h"

namespace tputrain::cli {

void AddServeBucketFlag(CLI::App& command, std::string& bucket) {
  command
      .add_option("--bucket", bucket,
                  "Bucket of the checkpoint and scratch files (BUCKET); default: the configuration's, else "
                  "--checkpoint's, else the one bucket the run created")
      ->type_name("NAME");
}

core::Result<std::map<std::string, std::string>> ServeConfiguration(Context& context, const ServeBucketFlags& flags) {
  auto settings = context.settings();
  if (!settings) return core::Fail(settings.error());
  auto configuration = workflow::ConfigurationValues(*settings);
  const config::Setting& configured = settings->Lookup("bucket");
  state::LedgerStore& store = context.stack().Ledger(flags.ledger.state_dir);
  auto run_id = flags.run_bucket ? store.ResolveRun(flags.ledger.run_id, context.env, /*create=*/false)
                                 : core::Result<std::string>(std::string());
  if (!run_id) return core::Fail(run_id.error());
  auto choice = workflow::ChooseBucket(
      {flags.bucket, flags.sets, configured.value, configured.source, flags.checkpoint}, store, *run_id);
  if (!choice) return core::Fail(choice.error());
  if (!*choice) return configuration;
  configuration["BUCKET"] = (*choice)->bucket;
  context.reporter().Info("Using " + workflow::Describe(**choice));
  return configuration;
}

}  // namespace tputrain::cli
