#!/usr/bin/env bash
# Builds the Kubernetes test peers from their Go modules, once per machine, into
# ${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}/k8s/, for the tests in tests/k8s/:
#   etcd; kube-apiserver, kube-controller-manager and kube-scheduler (one module, one `go build`:
#   they share nearly every package); kwok (fake nodes and kubelets); the KubeRay, LeaderWorkerSet
#   and JobSet controllers and the Kueue manager, plus the CRDs and webhook manifests those
#   operators need that the repository's pinned CRDs do not cover (kept here, never committed: they
#   are the projects' own), and the ProvisioningRequest CRD that GKE serves and Kueue's
#   provisioning admission check watches.
# Idempotent: each component has a stamp with its pinned version; a component whose stamp matches
# is left alone, so a warm re-run costs nothing. Builds run niced in two lanes (the k8s module
# then Kueue in one, about 1280 CPU-s cold, the rest in the other, about 900: on 2 cores the links
# and downloads of one fill the other's gaps),
# with private module/build caches that are removed after success. Each step's wall and CPU time
# goes to stderr.
set -Eeuo pipefail   # -E: the ERR trap of a build lane also sees failures inside functions

# Pins: the versions this workplace's Go module proxy serves (newer ones are refused).
k8s_version=v1.34.10        # kube-apiserver, kube-controller-manager, kube-scheduler
staging_version=v0.34.10    # the published k8s.io/<staging> modules matching k8s_version
etcd_version=v3.5.24
kwok_version=v0.7.0
kuberay_version=v1.6.1      # one minor behind the RayCluster/RayJob CRDs we pin (a superset)
lws_version=v0.9.0          # one minor behind our LWS CRD (2 lines of min/max differ)
jobset_version=v0.12.0
kueue_version=v0.17.1       # v0.17.2 and later are refused; v1beta2 objects are served since v0.15
layout=1                    # bump when the files kept for a component change

cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
dir=$cache/k8s
stamps=$dir/.stamps

declare -A want=(
  [etcd]="etcd $etcd_version"
  [k8s]="kubernetes $k8s_version layout $layout"
  [kwok]="kwok $kwok_version layout $layout"
  [kuberay]="kuberay $kuberay_version layout $layout"
  [lws]="lws $lws_version layout $layout"
  [jobset]="jobset $jobset_version layout $layout"
  [kueue]="kueue $kueue_version layout $layout"
)
declare -A outputs=(
  [etcd]="etcd"
  [k8s]="kube-apiserver kube-controller-manager kube-scheduler"
  [kwok]="kwok manifests/kwok"
  [kuberay]="kuberay-operator manifests/kuberay"
  [lws]="lws-controller manifests/lws"
  [jobset]="jobset-controller manifests/jobset"
  [kueue]="kueue-manager manifests/kueue"
)

is_current() {
  local c=$1 o
  [ "$(cat "$stamps/$c" 2>/dev/null)" = "${want[$c]}" ] || return 1
  for o in ${outputs[$c]}; do [ -e "$dir/$o" ] || return 1; done
}

# A cache built by the former kube-apiserver-only step: its etcd is the pinned one; keep it.
if [ ! -e "$stamps/etcd" ] && [ -x "$dir/etcd" ] && "$dir/etcd" --version 2>/dev/null | grep "${etcd_version#v}" >/dev/null; then
  mkdir -p "$stamps" && echo "${want[etcd]}" > "$stamps/etcd"
fi

todo=()
for c in etcd k8s kwok kuberay lws jobset kueue; do is_current "$c" || todo+=("$c"); done
[ ${#todo[@]} -eq 0 ] && exit 0

export PATH=/usr/local/go/bin:$PATH
command -v go >/dev/null || { echo "k8s.sh: Go is required to build the Kubernetes test peers" >&2; exit 1; }

mkdir -p "$dir" "$stamps"
work=$dir/.build   # kept after a failure, so that a retry reuses the downloads and compiled packages
mkdir -p "$work"
# One module cache and one build cache for both lanes: the go command locks them for concurrent
# use, and the standard library and common dependencies then compile once. setup-test-peers.sh
# hands the same pair to vllm-sim.sh (TPUTRAIN_GO_CACHES), which builds beside these lanes.
go_caches=${TPUTRAIN_GO_CACHES:-$work}
export GOMODCACHE=$go_caches/gomod GOCACHE=$go_caches/gocache GOFLAGS=-modcacherw GOTOOLCHAIN=local
export CGO_ENABLED=0
ldflags_strip="-s -w"

# run LOG CMD...: runs CMD niced with its output in LOG; on failure shows LOG's tail.
run() {
  local log=$1; shift
  if ! nice -n 15 "$@" >>"$log" 2>&1; then
    echo "k8s.sh: '$*' failed; last lines of $log:" >&2
    tail -n 30 "$log" >&2
    return 1
  fi
}

# timed NAME FUNC: runs FUNC, reports its wall and CPU time (user+sys of it and its children),
# and stamps the component.
timed() {
  local c=$1 fn=$2 t0 t1 cpu0 cpu1
  t0=$(date +%s.%N)
  children_cpu > "$work/.cpu0.$c"
  "$fn"
  t1=$(date +%s.%N)
  cpu0=$(cat "$work/.cpu0.$c")
  children_cpu > "$work/.cpu1.$c"
  cpu1=$(cat "$work/.cpu1.$c")
  awk -v c="$c" -v w="$t1" -v w0="$t0" -v u="$cpu1" -v u0="$cpu0" \
    'BEGIN { printf "k8s.sh: %-8s %6.0f s wall %6.0f s CPU\n", c, w - w0, u - u0 }' >&2
  echo "${want[$c]}" > "$stamps/$c"
}

# CPU seconds (user+sys) used by this shell's waited-for children so far (`times` runs in this
# shell, not in a command substitution's subshell, which would count only its own children).
children_cpu() {
  times > "$work/.times.$BASHPID"
  awk 'NR == 2 { n = split($0, a, /[ ms]+/); print a[1] * 60 + a[2] + a[3] * 60 + a[4] }' "$work/.times.$BASHPID"
}

module_dir() {  # module_dir MOD@VER: where `go mod download` put it
  go mod download -json "$1" | sed -n 's/^\s*"Dir": "\(.*\)",\?$/\1/p'
}

build_etcd() {
  local mod=$work/etcd log=$work/etcd.log
  rm -rf "$mod" && mkdir -p "$mod" && cd "$mod"
  run "$log" go mod init tputrain.test/etcd
  cat > main.go <<'EOF'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  # Its own module: etcd's go.mod pulls other versions of shared dependencies than Kubernetes.
  run "$log" go get "go.etcd.io/etcd/server/v3@$etcd_version"
  run "$log" go mod tidy
  run "$log" go build -trimpath -ldflags "$ldflags_strip" -o "$dir/etcd.tmp" .
  mv "$dir/etcd.tmp" "$dir/etcd"
  "$dir/etcd" --version | grep "${etcd_version#v}" >/dev/null
}

build_k8s() {
  local mod=$work/kubernetes log=$work/kubernetes.log
  rm -rf "$mod" && mkdir -p "$mod" && cd "$mod"
  run "$log" go mod init tputrain.test/kubernetes
  # k8s.io/kubernetes replaces its staging modules with local paths, which `go build` of a
  # dependency cannot follow; point each at its published release instead.
  local gomod staging
  gomod=$(go mod download -json "k8s.io/kubernetes@$k8s_version" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')
  [ -f "$gomod" ] || { echo "k8s.sh: no go.mod for k8s.io/kubernetes@$k8s_version" >&2; return 1; }
  staging=$(sed -n 's#^\s*\(k8s\.io/[A-Za-z0-9._/-]*\) => \./staging/.*#\1#p' "$gomod")
  [ -n "$staging" ] || { echo "k8s.sh: no staging replaces in $gomod" >&2; return 1; }
  {
    echo
    echo "require k8s.io/kubernetes $k8s_version"
    echo
    echo "replace ("
    for m in $staging; do echo "  $m => $m $staging_version"; done
    echo ")"
  } >> go.mod
  cat > tools.go <<'EOF'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
EOF
  run "$log" go mod tidy
  local minor=${k8s_version#v1.}; minor=${minor%%.*}
  local pkg=k8s.io/component-base/version out=$work/kubernetes-bin
  mkdir -p "$out"
  run "$log" go build -trimpath -o "$out/" \
    -ldflags "$ldflags_strip -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler
  local b
  for b in kube-apiserver kube-controller-manager kube-scheduler; do
    "$out/$b" --version | grep "$k8s_version" >/dev/null
    mv "$out/$b" "$dir/$b"
  done
}

build_kwok() {
  local log=$work/kwok.log
  cd "$work"
  run "$log" env GOBIN="$work/kwok-bin" go install -trimpath -ldflags "$ldflags_strip" \
    "sigs.k8s.io/kwok/cmd/kwok@$kwok_version"
  # Its stock stages, for the fixture to pick from per test (node set-up and heartbeat; pod
  # ready, complete and delete).
  local src
  src=$(module_dir "sigs.k8s.io/kwok@$kwok_version")
  keep_manifests kwok "$src" kustomize/stage/node/fast/node-initialize.yaml \
    kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
    kustomize/stage/pod/fast/pod-ready.yaml kustomize/stage/pod/fast/pod-complete.yaml \
    kustomize/stage/pod/fast/pod-delete.yaml
  mv "$work/kwok-bin/kwok" "$dir/kwok"
}

build_kuberay() {
  local log=$work/kuberay.log src
  cd "$work"
  run "$log" env GOBIN="$work/kuberay-bin" go install -trimpath -ldflags "$ldflags_strip" \
    "github.com/ray-project/kuberay/ray-operator@$kuberay_version"
  src=$(module_dir "github.com/ray-project/kuberay/ray-operator@$kuberay_version")
  # KubeRay always runs its RayService and RayJob controllers (and a RayCronJob one behind a
  # gate): the first needs its CRD even when no test makes a RayService.
  keep_manifests kuberay "$src" config/crd/bases/ray.io_rayservices.yaml config/crd/bases/ray.io_raycronjobs.yaml
  mv "$work/kuberay-bin/ray-operator" "$dir/kuberay-operator"
}

# Route 2: LWS and JobSet cannot be `go install`ed here (the proxy refuses the version list
# that go install reads for deprecation); build inside a writable copy of the module instead.
build_in_module_copy() {  # NAME MODULE VERSION PACKAGE VERSION_VAR
  local name=$1 module=$2 version=$3 package=$4 version_var=$5 log=$work/$1.log src copy
  src=$(module_dir "$module@$version")
  [ -d "$src" ] || { echo "k8s.sh: could not download $module@$version" >&2; return 1; }
  copy=$work/$name-src
  rm -rf "$copy" && cp -r "$src" "$copy" && chmod -R u+w "$copy"
  cd "$copy"
  run "$log" go build -trimpath -ldflags "$ldflags_strip -X $version_var=$version" \
    -o "$work/$name-controller" "$package"
  SRC=$src
}

build_lws() {
  build_in_module_copy lws sigs.k8s.io/lws "$lws_version" ./cmd sigs.k8s.io/lws/pkg/version.GitVersion
  # LWS >= 0.9 also runs a DisaggregatedSet controller, which needs its CRD. Its webhooks are
  # required (the reconciler relies on the mutating webhook's defaults).
  keep_manifests lws "$SRC" config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml \
    config/webhook/manifests.yaml config/webhook/mutating-patch.yaml config/webhook/validating-patch.yaml
  mv "$work/lws-controller" "$dir/lws-controller"
}

build_jobset() {
  build_in_module_copy jobset sigs.k8s.io/jobset "$jobset_version" . sigs.k8s.io/jobset/pkg/version.GitVersion
  # JobSet always registers its webhooks; exclusive placement is done by its pod webhook.
  keep_manifests jobset "$SRC" config/components/webhook/manifests.yaml \
    config/components/webhook/patches/mutating-patch.yaml config/components/webhook/patches/validating-patch.yaml
  mv "$work/jobset-controller" "$dir/jobset-controller"
}

build_kueue() {
  build_in_module_copy kueue sigs.k8s.io/kueue "$kueue_version" ./cmd/kueue sigs.k8s.io/kueue/pkg/version.GitVersion
  # Its CRDs (v1beta2 served beside v1beta1), its webhooks (with the kustomization that keeps
  # kube-system and kueue-system out of the pod webhooks), and the ProvisioningRequest CRD of the
  # cluster-autoscaler APIs version Kueue builds against (GKE serves that API itself).
  local crds=config/components/crd/bases autoscaler_version autoscaler
  keep_manifests kueue "$SRC" $(cd "$SRC" && ls $crds/kueue.x-k8s.io_*.yaml) \
    config/components/webhook/manifests.yaml config/components/webhook/kustomization.yaml
  autoscaler_version=$(awk '$1 == "k8s.io/autoscaler/cluster-autoscaler/apis" { print $2 }' "$SRC/go.mod")
  autoscaler=$(module_dir "k8s.io/autoscaler/cluster-autoscaler/apis@$autoscaler_version")
  [ -f "$autoscaler/config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml" ] ||
    { echo "k8s.sh: no ProvisioningRequest CRD in $autoscaler" >&2; return 1; }
  cp "$autoscaler/config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml" "$dir/manifests/kueue/"
  chmod u+w "$dir/manifests/kueue/autoscaling.x-k8s.io_provisioningrequests.yaml"
  mv "$work/kueue-controller" "$dir/kueue-manager"
}

keep_manifests() {  # NAME MODULE_DIR FILE...: copies FILEs (paths in the module) to manifests/NAME/
  local name=$1 src=$2 f
  shift 2
  local to=$dir/manifests/$name
  rm -rf "$to.tmp" && mkdir -p "$to.tmp"
  for f in "$@"; do
    [ -f "$src/$f" ] || { echo "k8s.sh: $name has no $f" >&2; return 1; }
    cp "$src/$f" "$to.tmp/$(basename "$f")"
  done
  chmod -R u+w "$to.tmp"
  rm -rf "$to" && mv "$to.tmp" "$to"
}

lane() {  # runs the given components in order, each timed and stamped
  local c
  for c in "$@"; do
    trap '[ -n "${said:-}" ] || { said=1; echo "k8s.sh: building $c failed (logs in $work)" >&2; }' ERR
    timed "$c" "build_$c"
  done
}

lane_a=() lane_b=()
for c in "${todo[@]}"; do
  case $c in k8s | kueue) lane_a+=("$c") ;; *) lane_b+=("$c") ;; esac
done
echo "k8s.sh: building ${todo[*]} (logs in $work until they succeed)" >&2
pids=()
[ ${#lane_a[@]} -gt 0 ] && { (lane "${lane_a[@]}") & pids+=($!); }
[ ${#lane_b[@]} -gt 0 ] && { (lane "${lane_b[@]}") & pids+=($!); }
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
[ $failed -eq 0 ] || exit 1

for c in etcd k8s kwok kuberay lws jobset kueue; do
  is_current "$c" || { echo "k8s.sh: $c did not build" >&2; exit 1; }
done
rm -f "$dir/.stamp"   # the former kube-apiserver-only step's stamp
chmod -R u+w "$work" 2>/dev/null || true
rm -rf "$work"
