#pragma once

#include <string>
#include <string_view>

namespace tputrain::core {

// Google Cloud location names, as gcloud's --zone and --region take them. Here rather than in
// gcp/ because render (template values) and the emulator need them and depend only on core.

// "us-central1", "europe-west4": <area>-<place><digits>.
bool IsRegion(std::string_view location);

// "us-central1-a", "us-east5-b": a region, '-', one letter.
bool IsZone(std::string_view location);

// The region of a zone ("us-central1-a" → "us-central1"); anything else unchanged, so a region
// (or a name tputrain does not recognise) passes through.
std::string RegionOf(std::string_view location);

}  // namespace tputrain::core
