// The startup script every host of a `tpu-vm create --ray` node runs at boot. It needs bash and
// curl only; all it knows comes from the metadata server, so the same text serves every host.
#include "tputrain/workflow/tpu_vm_ray.h"

namespace tputrain::workflow {

std::string RayStartupScript() {
  return R"SCRIPT(#!/bin/bash
# Written by tputrain (tpu-vm create --ray): starts Ray on this TPU VM host. Worker 0 runs the
# head; the others join it. Multislice: the host at tputrain-ray-head's address (slice 0's worker
# 0) runs it and every other host of every slice joins. Progress goes to guest attributes
# tputrain/ray-state, ray-message.
set -uo pipefail
# The metadata server can be briefly unavailable while a VM boots: a timeout, a refused
# connection, a 5xx or 429 is retried with backoff (1 s doubling, for up to two minutes); an
# absent key (404) is an answer at once.
md_url=http://metadata.google.internal/computeMetadata/v1/instance
md_retry=(--retry 7 --retry-connrefused --retry-max-time 120)
md() { curl -sf --max-time 10 "${md_retry[@]}" -H 'Metadata-Flavor: Google' "$md_url/$1"; }
report() {
  curl -sf --max-time 10 "${md_retry[@]}" -X PUT -H 'Metadata-Flavor: Google' --data-binary "$2" \
    "$md_url/guest-attributes/tputrain/$1" >/dev/null || echo "tputrain: could not report $1=$2" >&2
}
fail() { report ray-message "$1"; report ray-state failed; echo "tputrain: $1" >&2; exit 1; }

worker=$(md attributes/agent-worker-number) || fail "no agent-worker-number in the metadata"
ip=$(md network-interfaces/0/ip) || fail "no network-interfaces/0/ip in the metadata"
endpoints=$(md attributes/worker-network-endpoints) || fail "no worker-network-endpoints in the metadata"
# unknown:unknown:10.0.0.2,unknown:unknown:10.0.0.3: worker 0's address is the head's.
head_ip=$(echo "${endpoints%%,*}" | cut -d: -f3)
token=$(md attributes/tputrain-ray-token) || fail "no tputrain-ray-token in the metadata"
# The host's time to join: tputrain's --ray-timeout, the same bound as its own wait.
join_within=$(md attributes/tputrain-ray-timeout || true)
case $join_within in '' | *[!0-9]*) join_within=1800 ;; esac
deadline=$((SECONDS + join_within))
# One argument a line, each kept whole: arrays are never word-split or globbed again.
mapfile -t start_args < <(md attributes/tputrain-ray-start-args || true)
mapfile -t packages < <(md attributes/tputrain-ray-packages || true)

is_head=false
[ "$worker" = 0 ] && is_head=true
if slices=$(md attributes/tputrain-ray-slices); then
  # tputrain hands out the head's address once every slice has its own (nodes.patch).
  report ray-state waiting-for-address
  delay=1
  until head_ip=$(md attributes/tputrain-ray-head); do
    sleep "$delay"
    [ "$delay" -lt 8 ] && delay=$((delay * 2))
    waited=$((${waited:-0} + delay))
    [ "$waited" -gt 3600 ] && fail "no tputrain-ray-head in the metadata after an hour (one Ray across $slices slices)"
  done
  [ "$ip" = "$head_ip" ] || is_head=false
fi

if setup=$(md attributes/tputrain-setup); then
  report ray-state setup
  setup_file=$(mktemp /tmp/tputrain-setup.XXXXXX)
  printf '%s\n' "$setup" >"$setup_file"
  bash "$setup_file" || fail "the --setup script failed (exit $?)"
fi
if ! command -v ray >/dev/null 2>&1 || [ "${#packages[@]}" -gt 0 ]; then
  report ray-state installing
  wanted=$(md attributes/tputrain-ray-version || echo 2.60.0)
  command -v ray >/dev/null 2>&1 || packages=("ray[default]==$wanted" "${packages[@]}")
  python3 -m pip install --quiet "${packages[@]}" || fail "pip install ${packages[*]} failed"
fi

# A head that is slow (loaded, or still installing) keeps a new raylet waiting to register:
# Ray's own wait for that is short.
export RAY_AUTH_MODE=token RAY_AUTH_TOKEN="$token" RAY_USAGE_STATS_ENABLED=0 RAY_raylet_start_wait_time_s=120
if [ "$is_head" = true ]; then
  report ray-state starting-head
  ray start --head --node-ip-address="$ip" --port=6379 --dashboard-host=0.0.0.0 --disable-usage-stats \
    "${start_args[@]}" || fail "ray start --head failed"
else
  report ray-state waiting-for-head
  delay=1
  until (exec 3<>"/dev/tcp/$head_ip/6379") 2>/dev/null; do
    [ "$SECONDS" -ge "$deadline" ] && fail "the head at $head_ip:6379 did not come up in $join_within s (--ray-timeout)"
    sleep "$delay"
    [ "$delay" -lt 8 ] && delay=$((delay * 2))
  done
  report ray-state joining
  # Each try in a session of its own: what a failed one started (a raylet still registering)
  # ends with it, or the next try would make this host a second node.
  said=$(mktemp /tmp/tputrain-ray-start.XXXXXX)
  join() {
    setsid --wait ray start --address="$head_ip:6379" --node-ip-address="$ip" --disable-usage-stats \
      "${start_args[@]}" 2>"$said" &
    local try=$!
    wait "$try" && return 0
    kill -TERM -- "-$try" 2>/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$try" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$try" 2>/dev/null
    cat "$said" >&2
    return 1
  }
  tries=1 delay=1
  until join; do
    last=$(grep -v '^[[:space:]]*$' "$said" | tail -n 1 | cut -c 1-300)
    [ "$SECONDS" -ge "$deadline" ] &&
      fail "ray start --address=$head_ip:6379 failed $tries times in $join_within s (--ray-timeout); the last said: $last"
    report ray-message "ray start --address=$head_ip:6379 failed (try $tries), again in $delay s: $last"
    sleep "$delay"
    [ "$delay" -lt 30 ] && delay=$((delay * 2))
    tries=$((tries + 1))
  done
fi
report ray-version "$(ray --version 2>/dev/null | awk '{print $NF}')"
report ray-state ready
)SCRIPT";
}

}  // namespace tputrain::workflow
