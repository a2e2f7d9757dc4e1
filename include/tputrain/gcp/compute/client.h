#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tputrain/core/result.h"
#include "tputrain/gcp/operations/wait.h"
#include "tputrain/http/transport.h"

// Compute Engine compute/v1: VPC firewall rules and the global operations they start.
namespace tputrain::gcp::compute {

enum class Direction { kIngress, kEgress };

// One entry of a rule's `allowed` or `denied`: a protocol ("tcp", "udp", "all", a number) and
// ports ("22", "8000-9000"); no ports means every port.
struct ProtocolPorts {
  std::string protocol;
  std::vector<std::string> ports;
  bool operator==(const ProtocolPorts&) const = default;
};

struct Firewall {
  std::string name;
  std::string network;  // a name ("default") or a link; the API answers with a link
  Direction direction = Direction::kIngress;
  int priority = 1000;
  bool disabled = false;
  std::string description;
  std::vector<ProtocolPorts> allowed;
  std::vector<ProtocolPorts> denied;
  std::vector<std::string> source_ranges;
  std::vector<std::string> source_tags;
  std::vector<std::string> target_tags;
  std::vector<std::string> target_service_accounts;
  std::string self_link;  // output only
};

enum class OperationStatus { kPending, kRunning, kDone };

struct Operation {
  std::string name;
  std::string operation_type;  // "insert", "delete"
  OperationStatus status = OperationStatus::kPending;
  std::string target_link;
  std::string self_link;
  // A DONE operation that failed: its httpErrorStatusCode and its errors' messages.
  std::optional<core::Error> error;
  bool done() const { return status == OperationStatus::kDone; }
};

// The network's name from a name or a link (".../global/networks/NAME").
std::string NetworkName(const std::string& network);

nlohmann::json FirewallToJson(const Firewall& firewall, const std::string& project);
Firewall FirewallFromJson(const nlohmann::json& body);
core::Result<Operation> OperationFromJson(const nlohmann::json& body);

class Client {
 public:
  // `base_url` is Endpoints::compute: ".../compute/v1/".
  Client(http::Transport& transport, std::string base_url);

  // The requests as sent (and as --dry-run prints them); gcloud compute firewall-rules create's body.
  http::Request BuildInsertFirewall(const std::string& project, const Firewall& firewall) const;
  http::Request BuildDeleteFirewall(const std::string& project, const std::string& name) const;

  core::Result<Operation> InsertFirewall(const std::string& project, const Firewall& firewall);
  core::Result<Firewall> GetFirewall(const std::string& project, const std::string& name);
  core::Result<std::vector<Firewall>> ListFirewalls(const std::string& project);
  core::Result<Operation> DeleteFirewall(const std::string& project, const std::string& name);
  core::Result<Operation> GetGlobalOperation(const std::string& project, const std::string& name);

 private:
  http::Transport& transport_;
  std::string base_url_;
};

// How to wait for a global operation (operations::Wait); `client` must outlive the wait. It ends
// DONE; its error (kind from its httpErrorStatusCode) is its failure.
operations::Waiting<Operation> GlobalOperationWaiting(Client& client, const std::string& project,
                                                      const std::string& name);

}  // namespace tputrain::gcp::compute
