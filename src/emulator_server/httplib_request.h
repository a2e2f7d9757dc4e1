#pragma once

#include <functional>

#include <httplib.h>

#include "tputrain/emulator/emulator.h"

// cpp-httplib's request as the emulator's handlers take it (header names lowered), for both its
// listeners: the API server and the TPU hosts' metadata server.
namespace tputrain::emulator {

ApiRequest FromHttplib(const httplib::Request& request);

// A handler of whole requests, the body read and bounded; `raw` is httplib's, for what only it has
// (the peer's address, the Range it would apply).
using ApiHandler = std::function<void(ApiRequest request, const httplib::Request& raw, httplib::Response& response)>;

// Routes GET, POST, PUT, PATCH and DELETE on every path of `server` to `handle`. Each body is read
// as it arrives and kept up to MaxRequestBytes(path); a larger one is read to its end and dropped,
// and answered 413 (httplib refuses a Content-Length past the largest bound itself, unread): no
// request costs more memory than its bound, and the answer follows the whole request on the
// connection. httplib would buffer a GET's, HEAD's or OPTIONS's body whole, with no bound: those
// with a body are read the same way and refused (400), as Google's front end refuses them.
void RouteBounded(httplib::Server& server, ApiHandler handle);

// One listener per port. httplib's default sets SO_REUSEPORT, with which a second emulator binds a
// port the first listens on and the kernel splits connections between two states (and leak checks
// read the wrong one). SO_REUSEADDR alone still lets a restarted emulator bind a port that its
// predecessor's connections hold in TIME_WAIT. Call before binding.
void ListenAlone(httplib::Server& server);

}  // namespace tputrain::emulator
