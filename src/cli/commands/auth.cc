#include "commands/commands.h"
#include "output/output.h"
#include "tputrain/workflow/google_credentials.h"

namespace tputrain::cli {
namespace {

core::Result<int> RunAuthStatus(Context& context) {
  auto status = workflow::CheckGoogleCredentials(context.stack());
  if (!status) return core::Fail(status.error());
  PrintResult(context, workflow::ToJson(*status), [&](std::ostream& out) {
    PrintTable(out, {"source", "origin", "account", "token"},
               {{status->source, status->origin, status->account.empty() ? "-" : status->account, "valid"}});
  });
  return core::kExitOk;
}

core::Result<int> RunAuthPrintAccessToken(Context& context) {
  auto token = workflow::GoogleAccessToken(context.stack());
  if (!token) return core::Fail(token.error());
  // Written directly, never through a redacting sink: printing it is what was asked.
  PrintResult(context, {{"token", *token}}, [&](std::ostream& out) { out << *token << "\n"; });
  return core::kExitOk;
}

}  // namespace

void SetupAuthCommand(CLI::App& root, Context& context) {
  auto* auth =
      root.add_subcommand("auth", "Show the Google credentials tputrain uses (as gcloud and client libraries)");
  auth->require_subcommand(1);
  auto* status = auth->add_subcommand("status", "Say which credentials are in use and whose they are, never the token");
  status->footer(
      "Order: --access-token-file or CLOUDSDK_AUTH_ACCESS_TOKEN_FILE, GOOGLE_APPLICATION_CREDENTIALS,\n"
      "gcloud's application_default_credentials.json, then the metadata server.\n\n"
      "Example:\n  tputrain auth status --format json");
  status->callback([&context] { context.outcome = RunAuthStatus(context); });
  auto* print = auth->add_subcommand("print-access-token", "Print an access token, for piping into other tools");
  print->footer("Example:\n  curl -H \"Authorization: Bearer $(tputrain auth print-access-token)\" ...");
  print->callback([&context] { context.outcome = RunAuthPrintAccessToken(context); });
}

}  // namespace tputrain::cli
