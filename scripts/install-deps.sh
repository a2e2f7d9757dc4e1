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
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
