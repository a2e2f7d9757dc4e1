#include "commands/ray_common.h"

namespace tputrain::cli {

void AddRayConnectionFlags(CLI::App* command, ray::ConnectionFlags& flags) {
  command->add_option("--address", flags.address,
                      "Ray dashboard URL, e.g. http://127.0.0.1:8265 (default: RAY_ADDRESS, then ray_address "
                      "in tputrain.yaml)");
  command->add_option("--header", flags.headers,
                      "Extra HTTP header NAME:VALUE for an authenticated dashboard (repeatable; default: "
                      "RAY_JOB_HEADERS, a JSON object)");
}

}  // namespace tputrain::cli
