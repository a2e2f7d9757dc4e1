#pragma once

#include <cstdint>
#include <string>

// The network the emulator's TPU VM hosts live on with `--tpu-hosts netns`: one bridge in the
// machine's namespace, every host a network namespace joined to it by a veth. The range is the
// emulator's own (the tests' namespaces use 10.246-10.252), and it has no uplink.
namespace tputrain::emulator {

inline constexpr char kTpuHostBridge[] = "tpuemu0";
// Every name the emulator gives a namespace, link or /etc/netns directory starts with this, so a
// crashed emulator's leftovers are found and removed by the next one.
inline constexpr char kTpuHostNamePrefix[] = "tpuemu";
inline constexpr int kTpuHostPrefixLength = 16;
inline constexpr char kTpuHostBridgeAddress[] = "10.213.0.1";       // also the hosts' metadata server
inline constexpr char kTpuHostDeadEndGateway[] = "10.213.255.254";  // nobody owns it
inline constexpr int kMetadataServerPort = 80;                      // metadata URLs carry no port

// The address of the `index`-th host the emulator ever booted: 10.213.1.1 upwards, never .0/.255.
std::string TpuHostAddress(int64_t index);

}  // namespace tputrain::emulator
