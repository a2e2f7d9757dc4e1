#include <iostream>

#include "tputrain/cli/main.h"
#include "tputrain/cli/process_factory.h"
#include "tputrain/core/cancel.h"

int main(int argc, char** argv) {
  tputrain::core::CancelToken cancel;
  tputrain::core::InstallInterruptHandler(cancel);
  tputrain::cli::ProcessFactory factory(&cancel);
  tputrain::cli::Context context(tputrain::core::Env::FromProcess(), factory);
  int code = tputrain::cli::Main(argc, argv, context);
  std::cout.flush();
  return code;
}
