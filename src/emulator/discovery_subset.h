#pragma once

#include <string_view>

namespace tputrain::emulator {

// The contents of data/discovery_subset.json, embedded at build time (embed.cmake).
std::string_view DiscoverySubsetJson();

}  // namespace tputrain::emulator
