#include <unistd.h>

#include <iostream>

#include "tputrain/cli/main.h"
#include "tputrain/cli/output.h"
#include "tputrain/core/cancel.h"

int main(int argc, char** argv) {
  tputrain::core::CancelToken cancel;
  tputrain::core::InstallInterruptHandler(cancel);
  tputrain::cli::Context context(tputrain::core::Env::FromProcess(), std::cout, std::cerr);
  context.stdin_is_tty = isatty(STDIN_FILENO) == 1;
  context.stdout_is_tty = isatty(STDOUT_FILENO) == 1;
  context.stderr_is_tty = isatty(STDERR_FILENO) == 1;
  if (context.stdout_is_tty) context.stdout_columns = tputrain::cli::TerminalColumns(STDOUT_FILENO);
  context.cancel = &cancel;
  int code = tputrain::cli::Main(argc, argv, context);
  std::cout.flush();
  return code;
}
