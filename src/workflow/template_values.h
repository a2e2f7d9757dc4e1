#pragma once

#include <map>
#include <string>
#include <vector>

#include "tputrain/catalog/tpu_types.h"
#include "tputrain/config/settings.h"
#include "tputrain/core/result.h"
#include "tputrain/render/values.h"

// The TPU catalog seen through templates: the values a slice fixes, under render::ComputedNames.
namespace tputrain::workflow {

// The configuration (tputrain.yaml, gcloud's properties, the environment) under the names
// templates use: PROJECT_ID, LOCATION, REGION (the location's region), CLUSTER_NAME, BUCKET.
// Unset or empty settings are left out.
std::map<std::string, std::string> ConfigurationValues(const config::Settings& settings);

// v6e-16 × 1 → TPU_TOPOLOGY=4x4, TPU_CHIPS_PER_HOST="4", NUM_HOSTS=4, GKE_ACCELERATOR=
// tpu-v6e-slice, MACHINE_TYPE=ct6e-standard-4t, LWS_SIZE=5, RAY_NUM_WORKERS=4, ...
std::vector<render::ComputedValue> ValuesForSlice(const catalog::TpuSliceType& slice, int slices);

// A render::SliceValues: the TPU type looked up in the catalog (v6e-16, v5litepod-32, v6e-4x4,
// v5e-32), then ValuesForSlice. Pass it as RenderRequest::slice_values.
core::Result<std::vector<render::ComputedValue>> SliceTemplateValues(const std::string& tpu_type, int slices);

}  // namespace tputrain::workflow
