#include "flags/capacity_flags.h"

namespace tputrain::cli {

void AddCapacityFlags(CLI::App* command, workflow::CapacityFlags& flags, bool flex_start) {
  command->add_option("--capacity", flags.capacity,
                      flex_start ? "Where the TPU chips come from: on-demand (default), spot, reservation, flex-start"
                                 : "Where the TPU chips come from: on-demand (default), spot, reservation");
  command->add_flag("--spot", flags.spot, "Short for --capacity spot");
  command->add_option("--reservation", flags.reservation,
                      "Short for --capacity reservation: NAME, projects/P/reservations/NAME[/reservationBlocks/B"
                      "[/reservationSubBlocks/S]]");
  if (!flex_start) return;
  command->add_option("--max-run-duration", flags.max_run_duration,
                      "Flex-start: how long a node may run (up to 7 days: 168h)");
  command->add_flag("--enable-queued-provisioning", flags.queued_provisioning,
                    "Refused: GKE queues provisioning for GPUs only (TPUs use --capacity flex-start)");
}

void AddFailoverFlags(CLI::App* command, workflow::FailoverFlags& flags, const char* zones_help) {
  // Split by workflow::ZonesOf, not CLI11: CLI11 drops an empty element without a word.
  command->add_option("--zones", flags.zones, zones_help);
  command->add_flag("--retry-until-up", flags.retry_until_up,
                    "After a round of --zones with no capacity, wait --retry-gap and go again (until --timeout)");
  command->add_option("--retry-gap", flags.retry_gap, "Wait between --retry-until-up rounds (default 30s)");
}

}  // namespace tputrain::cli
