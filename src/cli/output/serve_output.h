#pragma once

#include "tputrain/cli/context.h"
#include "tputrain/workflow/serve_up.h"

// What serve up and serve down did, as --format asks: one printer for every engine.
namespace tputrain::cli {

// --format json: workflow::ToJson(up). The table: each object applied, then how to ask the served
// model; under --dry-run the objects as YAML after comment lines.
void PrintServeUp(Context& context, const workflow::ServeUpOutcome& up);

// --format json: workflow::ToJson(down). The table: Saxml's unpublish, then each object deleted
// (or found gone).
void PrintServeDown(Context& context, const workflow::ServeDownOutcome& down);

}  // namespace tputrain::cli
