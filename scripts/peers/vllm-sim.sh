#!/usr/bin/env bash
# The vLLM test peer: llm-d-inference-sim, a SIMULATOR of vLLM's OpenAI-compatible HTTP API from
# the llm-d project (real vLLM does not install on these CPU-only machines; see
# ../shared/notes/vllm.md §3). Built once per machine from its Go module into
# ${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}/vllm-sim/llm-d-inference-sim.
# Idempotent: a binary whose stamp names the pinned version is left alone, so a warm run costs
# only a file comparison. The build caches are private and removed after success (kept after a
# failure, so that a retry reuses the downloads).
set -euo pipefail

# The version this workplace's Go module proxy serves. The proxy lists no versions of the module,
# so `go install …@version` (which reads the list for deprecation notices) fails: build inside a
# writable copy of the downloaded module instead, as k8s.sh does for LWS and JobSet.
sim_version=v0.10.2
module=github.com/llm-d/llm-d-inference-sim

cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
dir=$cache/vllm-sim
stamp="llm-d-inference-sim $sim_version"
[ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$dir/llm-d-inference-sim" ] && exit 0

export PATH=/usr/local/go/bin:$PATH
command -v go >/dev/null || { echo "vllm-sim.sh: Go is required to build the vLLM simulator" >&2; exit 1; }

mkdir -p "$dir"
work=$dir/.build
mkdir -p "$work"
# The Kubernetes peers' caches when setup-test-peers.sh shares them (TPUTRAIN_GO_CACHES): the
# standard library and the k8s.io modules both builds use then compile once.
go_caches=${TPUTRAIN_GO_CACHES:-$work}
export GOMODCACHE=$go_caches/gomod GOCACHE=$go_caches/gocache GOFLAGS=-modcacherw GOTOOLCHAIN=local
log=$work/build.log
t0=$(date +%s)
fail() {
  echo "vllm-sim.sh: $1; last lines of $log:" >&2
  tail -n 30 "$log" >&2
  exit 1
}

src=$(go mod download -json "$module@$sim_version" 2>>"$log" | sed -n 's/^\s*"Dir": "\(.*\)",\?$/\1/p') || true
[ -d "$src" ] || fail "could not download $module@$sim_version"
copy=$work/src
rm -rf "$copy" && cp -r "$src" "$copy" && chmod -R u+w "$copy"
# -mod=mod: let the go command complete go.sum from the module's own requirements.
(cd "$copy" && GOFLAGS="$GOFLAGS -mod=mod" nice -n 15 go build -trimpath -ldflags "-s -w" \
  -o "$work/llm-d-inference-sim" ./cmd/llm-d-inference-sim) >>"$log" 2>&1 || fail "go build failed"
"$work/llm-d-inference-sim" --help >/dev/null 2>&1 || fail "the built simulator does not run"
mv "$work/llm-d-inference-sim" "$dir/llm-d-inference-sim"
echo "$stamp" >"$dir/.stamp"
echo "vllm-sim.sh: built llm-d-inference-sim $sim_version in $(($(date +%s) - t0)) s" >&2
chmod -R u+w "$work" 2>/dev/null || true
rm -rf "$work"
