#!/usr/bin/env bash
# The Debian package, as a user would get it: CPack builds it from BUILD_DIR, dpkg-deb unpacks it
# into a throwaway root, and the installed tree works on its own: --version, the templates
# compiled into the binary (render --list and a render, with no templates directory anywhere), the
# example scripts in share/doc, the completion script, the man page, and the emulator
# (tputrain-emulator, beside tputrain, which `tputrain emulator start` runs). Its Depends must be
# Debian's runtime libraries (libyaml-cpp, ... computed by dpkg-shlibdeps; libcurl, which
# tputrain opens when it first sends, named by the package).
# Usage: tests/package/package_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" >&2; echo "package_test: cpack failed" >&2; exit 1; }
deb=$(ls "$work"/out/tputrain_*.deb)
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for library in libcurl libarchive libyaml-cpp libc6 libstdc++ libcpp-httplib; do
  [[ $depends == *"$library"* ]] || { echo "package_test: Depends lacks $library" >&2; exit 1; }
done

root="$work/root"
dpkg-deb -x "$deb" "$root"
bin="$root/usr/bin/tputrain"
[ -x "$bin" ] || { echo "package_test: no /usr/bin/tputrain in the package" >&2; exit 1; }
fail() { echo "package_test: $*" >&2; exit 1; }

# Nothing from the build tree: no template override, a clean working directory.
cd "$work"
env -u TPUTRAIN_TEMPLATE_DIR "$bin" --version | grep -q '^tputrain ' || fail "--version"
env -u TPUTRAIN_TEMPLATE_DIR "$bin" render --list --format json | grep -q '"raycluster-maxtext"' ||
  fail "render --list does not find the built-in templates"
# The binary alone: copied where no templates directory is, it still renders.
mkdir "$work/alone" && cp "$bin" "$work/alone/"
env -u TPUTRAIN_TEMPLATE_DIR "$work/alone/tputrain" render saxml --set BUCKET=b | grep -q 'kind: JobSet' ||
  fail "a copied binary does not render its built-in templates"
[ -x "$root/usr/share/doc/tputrain/examples/001-train-llama3-8b-gke.sh" ] || fail "no example scripts in share/doc"
env -u TPUTRAIN_TEMPLATE_DIR "$bin" completion bash | grep -q 'complete -F _tputrain tputrain' || fail "completion bash"
[ -s "$root/usr/share/man/man1/tputrain.1" ] || fail "no man page"
[ -s "$root/usr/share/bash-completion/completions/tputrain" ] || fail "no bash completion"
[ -s "$root/usr/share/zsh/vendor-completions/_tputrain" ] || fail "no zsh completion"
if command -v man >/dev/null; then
  MANPAGER=cat man -l "$root/usr/share/man/man1/tputrain.1" 2>/dev/null | grep -q "tputrain cluster create" ||
    fail "the man page does not render"
fi
emulator="$root/usr/bin/tputrain-emulator"
[ -x "$emulator" ] || fail "no /usr/bin/tputrain-emulator in the package"
# tputrain itself links neither the emulator nor cpp-httplib; the emulator does.
if readelf -d "$bin" | grep -q 'libcpp-httplib'; then fail "tputrain links cpp-httplib"; fi
# libcurl is opened on the first request, libarchive when a build context is packed (the Depends
# above names them): --version loads neither; `emulator state` below sends, so it shows the
# opened libcurl works from the package.
for library in libcurl libarchive; do
  if readelf -d "$bin" | grep -q "$library"; then fail "tputrain links $library (it should open it when needed)"; fi
  if LD_DEBUG=libs env -u TPUTRAIN_TEMPLATE_DIR "$bin" --version 2>&1 >/dev/null | grep -q "$library"; then
    fail "tputrain --version loads $library"
  fi
done
readelf -d "$emulator" | grep -q 'libcpp-httplib' || fail "tputrain-emulator does not link cpp-httplib"
# `tputrain emulator start` runs the installed emulator: it listens, answers, and stops on SIGTERM.
env -u TPUTRAIN_TEMPLATE_DIR "$bin" emulator start --port 0 >"$work/emulator.out" 2>"$work/emulator.err" &
emulator_pid=$!
for _ in $(seq 100); do grep -q '^export TPUTRAIN_EMULATOR_URL=' "$work/emulator.out" && break; sleep 0.1; done
url=$(sed -n 's/^export TPUTRAIN_EMULATOR_URL=//p' "$work/emulator.out")
[ -n "$url" ] || { kill "$emulator_pid"; fail "emulator start printed no URL: $(cat "$work/emulator.err")"; }
[ "$(readlink "/proc/$emulator_pid/exe")" = "$emulator" ] || { kill "$emulator_pid"; fail "emulator start did not run $emulator"; }
env -u TPUTRAIN_TEMPLATE_DIR "$bin" emulator state --url "$url" | grep -q '"clusters"' || { kill "$emulator_pid"; fail "emulator state"; }
kill -TERM "$emulator_pid"
wait "$emulator_pid" || fail "the emulator did not stop cleanly on SIGTERM"
for program in "$bin" "$emulator"; do
  if command -v file >/dev/null && file "$program" | grep -q "not stripped"; then fail "$program is not stripped"; fi
done
echo "package_test: ok"
