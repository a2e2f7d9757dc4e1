#!/usr/bin/env bash
# Builds a real kube-apiserver and etcd from their Go modules, once per machine, into
# ${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}/k8s/, for the tests in tests/k8s/.
# Idempotent: binaries whose stamp matches the pinned versions are left alone, so a re-run
# costs nothing. Each binary is built in its own throwaway module (sharing one module lets
# `go mod tidy` upgrade shared dependencies and break one of them). Builds run under `nice`
# with private module/build caches that are removed after success (~2.7 GB).
set -euo pipefail

k8s_version=v1.34.10        # newer patch releases are not served by this workplace's proxy
staging_version=v0.34.10    # the published k8s.io/<staging> modules matching k8s_version
etcd_version=v3.5.24

cache=${TPUTRAIN_TEST_CACHE:-$HOME/.cache/tputrain-test}
dir=$cache/k8s
apiserver=$dir/kube-apiserver
etcd=$dir/etcd
stamp="kube-apiserver=$k8s_version etcd=$etcd_version"

if [ -x "$apiserver" ] && [ -x "$etcd" ] && [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

export PATH=/usr/local/go/bin:$PATH
command -v go >/dev/null || { echo "kube-apiserver.sh: Go is required to build the test API server" >&2; exit 1; }

mkdir -p "$dir"
work=$dir/.build
export GOMODCACHE=$work/gomod GOCACHE=$work/gocache GOFLAGS=-modcacherw GOTOOLCHAIN=local
export CGO_ENABLED=0
mkdir -p "$work"
log=$work/build.log
: > "$log"

quiet() {
  if ! "$@" >>"$log" 2>&1; then
    echo "kube-apiserver.sh: '$*' failed; last lines of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

build_apiserver() {
  local mod=$work/apiserver
  rm -rf "$mod" && mkdir -p "$mod"
  cd "$mod"
  quiet go mod init tputrain.test/kube-apiserver
  # k8s.io/kubernetes replaces its staging modules with local paths, which `go build` of a
  # dependency cannot follow; point each at its published release instead.
  local gomod
  gomod=$(go mod download -json "k8s.io/kubernetes@$k8s_version" | sed -n 's/^\s*"GoMod": "\(.*\)",\?$/\1/p')
  [ -f "$gomod" ] || { echo "kube-apiserver.sh: no go.mod for k8s.io/kubernetes@$k8s_version" >&2; exit 1; }
  local staging
  staging=$(sed -n 's#^\s*\(k8s\.io/[A-Za-z0-9._/-]*\) => \./staging/.*#\1#p' "$gomod")
  [ -n "$staging" ] || { echo "kube-apiserver.sh: no staging replaces in $gomod" >&2; exit 1; }
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

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
EOF
  quiet go mod tidy
  local minor=${k8s_version#v1.}; minor=${minor%%.*}
  local pkg=k8s.io/component-base/version
  quiet nice -n 15 go build -trimpath -o "$apiserver.tmp" \
    -ldflags "-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor" \
    k8s.io/kubernetes/cmd/kube-apiserver
  mv "$apiserver.tmp" "$apiserver"
}

build_etcd() {
  local mod=$work/etcd
  rm -rf "$mod" && mkdir -p "$mod"
  cd "$mod"
  quiet go mod init tputrain.test/etcd
  cat > main.go <<'EOF'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  quiet go get "go.etcd.io/etcd/server/v3@$etcd_version"
  quiet go mod tidy
  quiet nice -n 15 go build -trimpath -ldflags "-s -w" -o "$etcd.tmp" .
  mv "$etcd.tmp" "$etcd"
}

[ -x "$etcd" ] && "$etcd" --version 2>/dev/null | grep -q "${etcd_version#v}" || build_etcd
[ -x "$apiserver" ] && "$apiserver" --version 2>/dev/null | grep -q "$k8s_version" || build_apiserver

"$apiserver" --version | grep -q "$k8s_version"
"$etcd" --version | grep -q "${etcd_version#v}"
echo "$stamp" > "$dir/.stamp"
chmod -R u+w "$work" 2>/dev/null || true
rm -rf "$work"
