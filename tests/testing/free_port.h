#pragma once

namespace tputrain::testing {

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released), never one
// this process was given before.
int FreeLoopbackPort();

}  // namespace tputrain::testing
