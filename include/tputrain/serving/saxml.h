#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tputrain/core/result.h"
#include "tputrain/http/transport.h"

// Saxml's HTTP front end (sax-http, port 8888) beyond generate: publishing a model to the cell,
// reading its state, unpublishing it. Two servers answer these routes (notes/manifests.md §4.2):
// the older stdlib one the seed's sax-http:v1.0.0 image runs (errors 400 {"Error": ...}, publish
// echoing "path") and the newer FastAPI one (errors 500 {"detail": ...}); tputrain sends what
// both accept and reads both.
namespace tputrain::serving {

// A model as published to a Saxml cell.
struct SaxModel {
  std::string id;          // /sax/CELL/NAME, e.g. /sax/test/spmd
  std::string model_path;  // the servable's class, e.g. saxml.server.pax.lm.params.lm_cloud.LmCloudSpmd175B32Test
  std::string checkpoint;  // gs://... or "None" (random weights, a test model)
  int64_t replicas = 1;
};

// What /listcell says of a published model.
struct SaxCellEntry {
  std::string id;
  std::string model_path;
  std::string checkpoint;
  int64_t max_replicas = 0;
  int64_t active_replicas = 0;
};

// A usage error naming `flag` unless `id` is /CELL_ROOT/CELL/NAME with Saxml's characters.
core::Status CheckSaxModelId(std::string_view flag, std::string_view id);
// The cell of a model id: /sax/test for /sax/test/spmd.
std::string SaxCellOf(std::string_view id);

// `base_url` ends in '/': the service proxy's URL of sax-http.
http::Request BuildPublish(const std::string& base_url, const SaxModel& model);
http::Request BuildListCell(const std::string& base_url, const std::string& id);
http::Request BuildUnpublish(const std::string& base_url, const std::string& id);

core::Result<SaxCellEntry> ParseListCell(const http::Response& response);

// One line for a sax-http answer that is not a success, in either server's shape, with a kind
// read from the Saxml status inside (NOT_FOUND: not published; ALREADY_EXISTS; UNAVAILABLE: no
// replica has loaded it yet).
core::Error SaxHttpError(const http::Response& response);

}  // namespace tputrain::serving
