// tputrain serve list / serve unpublish: sax-http's /listcell and /unpublish, through the API
// server's service proxy (the seed's `curl $LB_IP:8888/listcell` and `/unpublish`).
#include "commands/serve_flags.h"
#include "output/output.h"
#include "tputrain/workflow/serve_saxml.h"

namespace tputrain::cli {
namespace {

struct SaxHttpFlags {
  KubeAccessFlags access;
  ProvisionFlags ledger;  // unpublish marks the run's ledger
  std::vector<std::string> models;
  bool yes = false;
};

core::Result<int> RunList(const SaxHttpFlags& flags, Context& context) {
  auto states = workflow::ListSaxModels(context.stack(), {flags.access, {}, flags.models});
  if (!states) return core::Fail(states.error());
  std::vector<std::vector<std::string>> table;
  for (const auto& [id, found] : *states) {
    if (!found) {
      table.push_back({id, "no", "-", "-", "-"});
      continue;
    }
    const serving::SaxCellEntry& entry = *found;
    table.push_back({id, "yes", std::to_string(entry.active_replicas) + "/" + std::to_string(entry.max_replicas),
                     entry.model_path, entry.checkpoint});
  }
  PrintResult(context, workflow::ToJson(*states), [&](std::ostream& out) {
    PrintTable(out, {"model", "published", "active", "model path", "checkpoint"}, table);
  });
  return core::kExitOk;
}

core::Result<int> RunUnpublish(const SaxHttpFlags& flags, Context& context) {
  auto ids = workflow::SaxModelIds(flags.models);
  if (!ids) return core::Fail(ids.error());
  std::string names;
  for (const auto& id : *ids) names += (names.empty() ? "" : ", ") + id;
  auto confirmed = ConfirmDelete(context, flags.yes, "serve unpublish", "Unpublish " + names + "?");
  if (!confirmed) return core::Fail(confirmed.error());
  if (!*confirmed) return NothingDeleted(context);
  auto done = workflow::UnpublishSaxModels(
      context.stack(),
      {flags.access, {flags.ledger.run_id, flags.ledger.state_dir}, flags.models, context.global.dry_run});
  if (!done) return core::Fail(done.error());
  std::string text;
  for (const auto& [id, unpublished, planned] : *done) {
    if (planned) {
      text += "would send: " + planned->method + " " + planned->url + " " + planned->body + "\n";
      continue;
    }
    text += id + (unpublished ? " unpublished\n" : " was not published\n");
  }
  PrintResult(context, workflow::ToJson(*done), [&](std::ostream& out) { out << text; });
  return core::kExitOk;
}

}  // namespace

void AddSaxmlServeCommands(CLI::App& serve, Context& context) {
  auto list_flags = std::make_shared<SaxHttpFlags>();
  auto* list = serve.add_subcommand("list", "Saxml: the published models' state in the cell (sax-http /listcell)");
  list->add_option("--model", list_flags->models, "Model id or preset, repeatable (default /sax/test/spmd)");
  AddKubeAccessFlags(*list, list_flags->access);
  list->footer("Example:\n  tputrain serve list --cluster saxml-tpu --location us-east1 --model /sax/test/spmd");
  list->callback([list_flags, &context] { context.outcome = RunList(*list_flags, context); });

  auto unpublish_flags = std::make_shared<SaxHttpFlags>();
  auto* unpublish = serve.add_subcommand("unpublish", "Saxml: take a model out of the cell (sax-http /unpublish)");
  unpublish->add_option("--model", unpublish_flags->models, "Model id or preset, repeatable (default /sax/test/spmd)");
  AddKubeAccessFlags(*unpublish, unpublish_flags->access);
  AddProvisionFlags(unpublish, unpublish_flags->ledger, /*waits=*/false);
  AddYesFlag(unpublish, unpublish_flags->yes);
  unpublish->footer("Example:\n  tputrain serve unpublish --cluster saxml-tpu --location us-east1 --yes");
  unpublish->callback([unpublish_flags, &context] { context.outcome = RunUnpublish(*unpublish_flags, context); });
}

}  // namespace tputrain::cli
