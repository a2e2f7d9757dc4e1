#pragma once

#include <httplib.h>

#include "tputrain/emulator/emulator.h"

// cpp-httplib's request as the emulator's handlers take it (header names lowered), for both its
// listeners: the API server and the TPU hosts' metadata server.
namespace tputrain::emulator {

ApiRequest FromHttplib(const httplib::Request& request);

}  // namespace tputrain::emulator
