#!/usr/bin/env bash
# Installs the Debian packages tputrain builds and tests with. Idempotent and quiet: packages
# already present are not touched, and apt's index is refreshed only when something is missing.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config ccache
  libcli11-dev libcurl4-openssl-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev catch2 libssl-dev
  libcpp-httplib-dev libwslay-dev
  libarchive-dev # tar.gz build contexts (image build) and the emulator's check of them
  gettext-base   # GNU envsubst, the renderer's reference in tests
  iproute2       # network namespaces for the Kubernetes service-proxy tests
  clang-format clang-tidy  # scripts/check-format.sh and scripts/tidy.sh
  dpkg-dev       # dpkg-shlibdeps: the .deb's dependencies (CPack), tested by the package test
  openssh-client openssh-server  # --via ssh, and sshd per emulated TPU host (never as a service)
  shellcheck     # the examples/ scripts and the shell of the CI pipelines in examples/ci
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "install-deps: installing ${missing[*]}" >&2
  $sudo_cmd apt-get update -qq
  # No package may start a system-wide daemon (openssh-server would start sshd on port 22): the
  # emulator runs its own sshd per host with its own config. policy-rc.d 101 = "not allowed".
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $sudo_cmd tee "$policy" >/dev/null
    $sudo_cmd chmod 755 "$policy"
  fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  [ -z "$policy" ] || $sudo_cmd rm -f "$policy"
fi
