// Which zones offer each TPU generation. Facts from Google's "TPU regions and zones" page
// (cloud.google.com/tpu/docs/regions-zones, the copy dated 2025-09, North America and Europe as
// listed there; ../shared/notes/capacity-cost.md §A.6). A listed zone is no promise of capacity
// or quota: `--zones auto` checks each with the TPU API's acceleratorTypes.list before use.
#include "tputrain/catalog/tpu_types.h"

namespace tputrain::catalog {

const std::vector<std::string>& ZonesOf(const TpuGeneration& generation) {
  static const std::vector<std::string> v4 = {"us-central2-b"};
  static const std::vector<std::string> v5e = {"us-central1-a", "us-south1-a", "us-west1-c", "us-west4-a"};
  static const std::vector<std::string> v5p = {"us-central1-a", "us-east5-a"};
  static const std::vector<std::string> v6e = {"us-central1-b", "us-east1-d", "us-east5-a", "us-east5-b",
                                               "europe-west4-a"};
  static const std::vector<std::string> tpu7x = {"us-central1-c"};
  static const std::vector<std::string> none;
  if (generation.family == "v4") return v4;
  if (generation.family == "v5e") return v5e;
  if (generation.family == "v5p") return v5p;
  if (generation.family == "v6e") return v6e;
  if (generation.family == "tpu7x") return tpu7x;
  return none;
}

}  // namespace tputrain::catalog
