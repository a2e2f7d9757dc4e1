#!/usr/bin/env bash
# Ray on Cloud TPU VMs, without ssh. A multi-host slice whose hosts start Ray at boot, a
# JAX job on every host, a command run on each host, MaxText trained on the slice; then two slices
# as one Ray cluster (multislice); then everything the run made deleted.
#
# Settings, from the environment:
#   PROJECT           Google Cloud project (required)
#   ZONE              zone of the TPU VMs (us-east5-b)
#   ACCELERATOR_TYPE  slice type (v6e-16: four hosts of four chips)
#   TPU_NAME          name of the slice (ray-v6e); the multislice is TPU_NAME-ms
#   NUM_SLICES        slices of the multislice (2)
#   MAXTEXT_MODEL     MaxText preset trained on the slice (llama3-8b)
#   HOST_SETUP        a script every host runs at boot before Ray starts (default: one this script
#                     writes, which installs MaxText as the training example's image does); none:
#                     the hosts' image already has what the jobs import (JAX, MaxText)
#   RAY_START_ARGS    more `ray start` flags for every host (e.g. --num-cpus=8)
#   RUN               run id: the ledger every command records into (tpu-vm-UTC time)
#   DRY_RUN=1         print the requests of every step instead of sending them; nothing is created,
#                     so the steps that need the TPU VMs to exist are skipped
#   PROVISION_ONLY=1  make and delete the TPU VMs only, without Ray, skipping the jobs (a rehearsal
#                     against `tputrain emulator start`, whose TPU VMs boot nothing unless it is
#                     started with --tpu-hosts netns)
set -euo pipefail

PROJECT=${PROJECT:?set PROJECT to your Google Cloud project}
ZONE=${ZONE:-us-east5-b}
ACCELERATOR_TYPE=${ACCELERATOR_TYPE:-v6e-16}
TPU_NAME=${TPU_NAME:-ray-v6e}
NUM_SLICES=${NUM_SLICES:-2}
MAXTEXT_MODEL=${MAXTEXT_MODEL:-llama3-8b}
HOST_SETUP=${HOST_SETUP:-}
RAY_START_ARGS=${RAY_START_ARGS:-}
# on-demand or spot (a reservation makes the VM through a queued resource: tpu-vm create --queued).
CAPACITY=${CAPACITY:-on-demand}
RUN=${RUN:-tpu-vm-$(date -u +%Y%m%d-%H%M%S)}
DRY_RUN=${DRY_RUN:-0}
PROVISION_ONLY=${PROVISION_ONLY:-0}

export TPUTRAIN_PROJECT=$PROJECT TPUTRAIN_RUN=$RUN

tputrain() {
  if [ "$DRY_RUN" = 1 ]; then command tputrain --dry-run "$@"; else command tputrain "$@"; fi
}

# The first value of "KEY": in tputrain's --format json output (pretty-printed, one key a line).
json_value() { sed -n "s/^ *\"$1\": *\"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" | sed -n 1p; }

workdir=$(mktemp -d)
finish() {
  local status=$?
  trap - EXIT
  # From here a second Ctrl-C or TERM (a CI cancelling the job) must not cut the cleanup short:
  # the shell ignores them, and tputrain runs in a session of its own, out of the terminal's reach.
  trap '' INT TERM
  if [ "$DRY_RUN" != 1 ]; then
    if ! command tputrain runs show --run "$RUN" >/dev/null 2>&1; then
      # The first command stopped before recording anything (bad input, say): nothing to delete.
      echo "run $RUN recorded nothing: nothing to clean up" >&2
    else
      # Stops the run's Ray jobs, deletes the TPU VMs, the queued resource and the firewall rule.
      shielded tputrain cleanup --run "$RUN" --yes || status=1
      # Exit 3: something of the run is still there, a leak to look at; any other: no answer.
      local leak=0
      shielded tputrain cleanup --run "$RUN" --dry-run --detailed-exitcode >/dev/null || leak=$?
      if [ "$leak" = 3 ]; then
        echo "LEAK: run $RUN still has resources; see: tputrain runs show --run $RUN" >&2
        status=1
      elif [ "$leak" != 0 ]; then
        echo "the leak check of run $RUN failed (exit $leak); see: tputrain runs show --run $RUN" >&2
        status=1
      fi
    fi
  fi
  rm -rf "$workdir"
  exit "$status"
}
# setsid where there is one (util-linux): the command's own session gets no Ctrl-C from a terminal.
shielded() { if command -v setsid >/dev/null; then setsid -w "$@"; else "$@"; fi; }
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# What every host runs at boot: MaxText at the tag the training example's image pins, and the
# JaxTrainer script that runs it on every host of the slice, where MaxText's default launcher looks.
if [ -z "$HOST_SETUP" ]; then
  command tputrain render maxtext-ray-image --set "TPU_TYPE=$ACCELERATOR_TYPE" -o "$workdir/image" >/dev/null
  HOST_SETUP=$workdir/setup.sh
  {
    echo '#!/bin/bash'
    echo 'set -euo pipefail'
    echo 'mkdir -p /app && cd /app'
    echo '[ -d maxtext ] || git clone --depth 1 --branch tpu-recipes-v0.1.5 https://github.com/AI-Hypercomputer/maxtext.git'
    echo "(cd maxtext && pip install -e '.[tpu]' && install_maxtext_github_deps)"
    echo "cat >/app/maxtext_ray_trainer.py <<'PY'"
    cat "$workdir/image/maxtext_ray_trainer.py"
    echo 'PY'
  } >"$HOST_SETUP"
fi
ray_flags=(--ray --iap-firewall create)
[ "$HOST_SETUP" = none ] || ray_flags+=(--setup "$HOST_SETUP")
[ -z "$RAY_START_ARGS" ] || ray_flags+=(--ray-start-args "$RAY_START_ARGS")
[ "$PROVISION_ONLY" != 1 ] || ray_flags=()

echo "== A $ACCELERATOR_TYPE slice, Ray started on every host at boot"
tputrain services enable tpu.googleapis.com compute.googleapis.com
# Waits until every host's Ray has joined the head on worker 0. --iap-firewall create makes the
# rule that lets IAP reach the dashboard (port 8265): no ssh, no public address needed.
# With --zones A,B instead of --zone, a stockout in A moves on to B (the commands below would then
# need the zone the VM landed in: --format json prints it as details.zone).
tputrain tpu-vm create "$TPU_NAME" --zone "$ZONE" --accelerator-type "$ACCELERATOR_TYPE" \
  --capacity "$CAPACITY" "${ray_flags[@]}"

if [ "$DRY_RUN" = 1 ]; then
  echo "== Skipped (DRY_RUN): the jobs and the multislice need the TPU VM to exist"
  exit 0
fi

if [ "$PROVISION_ONLY" = 1 ]; then
  echo "== Skipped (PROVISION_ONLY): the jobs on $TPU_NAME"
else
  tputrain tpu-vm ray-status "$TPU_NAME" --zone "$ZONE"

  echo "== A JAX job on every host (Ray counts each host's TPU chips as the resource TPU)"
  mkdir -p "$workdir/job"
  # The job the stack file beside this script runs too (004-ray-on-tpu-vms.yaml).
  cp "$(dirname "$0")/004-ray-on-tpu-vms/jax_hosts.py" "$workdir/job/"
  tputrain job submit --tpu-vm "$TPU_NAME" --zone "$ZONE" --working-dir "$workdir/job" -- python jax_hosts.py

  echo "== One command on each host, output by worker"
  tputrain tpu-vm exec "$TPU_NAME" --zone "$ZONE" --worker all -- python3 -c 'import jax; print(jax.devices())'

  echo "== MaxText $MAXTEXT_MODEL on the slice's own Ray"
  tputrain submit --model "$MAXTEXT_MODEL" --tpu-vm "$TPU_NAME" --zone "$ZONE" --run-name "$RUN" \
    --env PYTHONPATH=/app/maxtext/src:/app/maxtext:/app --format json >"$workdir/summary.json"
  echo "MaxText: $(json_value status <"$workdir/summary.json"), $(json_value steps_logged <"$workdir/summary.json") steps"
fi
# Done with this slice: the multislice below needs its own quota.
tputrain tpu-vm delete "$TPU_NAME" --zone "$ZONE" --yes

echo "== Multislice: $NUM_SLICES slices made together (one queued resource), one Ray cluster"
tputrain tpu-vm create "$TPU_NAME-ms" --zone "$ZONE" --accelerator-type "$ACCELERATOR_TYPE" \
  --num-slices "$NUM_SLICES" "${ray_flags[@]}"
if [ "$PROVISION_ONLY" = 1 ]; then
  echo "== Skipped (PROVISION_ONLY): the job across the slices"
  exit 0
fi
hosts_ready=$(tputrain tpu-vm ray-status "$TPU_NAME-ms" --zone "$ZONE" --format json | grep -c '"state": "ready"')
echo "$hosts_ready hosts ready across $NUM_SLICES slices"
# One bundle per host, STRICT_SPREAD: one task on every host of every slice.
cat >"$workdir/job/slices.py" <<'EOF'
import socket

import ray
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

ray.init()
hosts = int(ray.cluster_resources()["TPU"]) // 4
group = placement_group([{"TPU": 4}] * hosts, strategy="STRICT_SPREAD")
ray.get(group.ready())


@ray.remote(num_cpus=0)
def where():
    import jax

    return socket.gethostname(), jax.device_count()


on_each_host = [
    where.options(
        resources={"TPU": 4},
        scheduling_strategy=PlacementGroupSchedulingStrategy(group, placement_group_bundle_index=i),
    ).remote()
    for i in range(hosts)
]
for host, devices in sorted(ray.get(on_each_host)):
    print(host, "sees", devices, "JAX devices")
EOF
tputrain job submit --tpu-vm "$TPU_NAME-ms" --zone "$ZONE" --working-dir "$workdir/job" -- python slices.py
