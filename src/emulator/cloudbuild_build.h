#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

// What cloudbuild.cc (the API) and cloudbuild_run.cc (how an emulated build advances) share.
// A stored build is the Build resource plus bookkeeping keys starting with '_':
//   _created, _latency (ms; -1: stuck, it never gets past WORKING), _phase (0 QUEUED, 1 WORKING
//   with the source fetched, 2 steps done, 3 images pushed, 4 DONE), _operation, _digest,
//   _sourceBytes, _context {files, bytes}, _checks (per step: null, or for `docker build`
//   {dockerfile (absolute, /workspace/...), found, tags}), _log {bucket, object} when the log goes to Cloud Storage.
namespace tputrain::emulator::cloudbuild {

bool IsTerminal(const nlohmann::json& build);

// Schedules the build's next phase (operations.h), each a quarter of its latency after the last;
// a stuck build gets past WORKING never, and a terminal one has nothing left.
void ScheduleNextPhase(nlohmann::json& build);

std::string Sha256Hex(std::string_view bytes);

// Appends `text` to the build's log object (a new generation), when it has one.
void AppendLog(nlohmann::json& world, const nlohmann::json& build, const std::string& text, int64_t now_ms);

// Ends the build in `status`; `failure_type` "" for none.
void Finish(nlohmann::json& build, const std::string& status, const std::string& failure_type,
            const std::string& detail, int64_t now_ms);

}  // namespace tputrain::emulator::cloudbuild
