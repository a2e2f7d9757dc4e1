#include "tputrain/core/cancel.h"

#include <unistd.h>
#include <csignal>

namespace tputrain::core {
namespace {

CancelToken* g_token = nullptr;  // The one place a signal handler can reach; set once in main.

extern "C" void OnInterrupt(int /*signal*/) {
  if (g_token == nullptr) _exit(130);
  if (g_token->cancelled()) _exit(130);  // The second Ctrl-C does not wait for anything.
  g_token->Cancel();
}

}  // namespace

void InstallInterruptHandler(CancelToken& token) {
  g_token = &token;
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace tputrain::core
