#pragma once

#include "tputrain/cli/context.h"
#include "tputrain/workflow/serve_up.h"

// What serve up and serve down did, as --format asks: one printer for every engine.
namespace tputrain::cli {

// --format json: the engine, the model, its slice, template, workload and Service, the endpoint,
// whether it serves, what was applied, and each engine's own (vLLM's hosts and why, Saxml's model
// path, replicas and publish); under --dry-run the objects. The table: each object applied, then
// how to ask the served model; under --dry-run the objects as YAML after comment lines.
void PrintServeUp(Context& context, const workflow::ServeUpOutcome& up);

// --format json: what was deleted (or found gone), a list; Saxml's, an object that also says
// whether the model was unpublished.
void PrintServeDown(Context& context, const workflow::ServeDownOutcome& down);

}  // namespace tputrain::cli
