#!/usr/bin/env bash
# The Debian package, as a user would get it: CPack builds it from BUILD_DIR, dpkg-deb unpacks it
# into a throwaway root, and the installed tree works on its own: --version, the templates found
# beside the binary (render --list), the completion script, the man page. Its Depends must be
# Debian's runtime libraries (libcurl, libyaml-cpp, ...), computed by dpkg-shlibdeps.
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
for library in libcurl libyaml-cpp libc6 libstdc++; do
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
  fail "render --list does not find the installed templates"
env -u TPUTRAIN_TEMPLATE_DIR "$bin" completion bash | grep -q 'complete -F _tputrain tputrain' || fail "completion bash"
[ -s "$root/usr/share/man/man1/tputrain.1" ] || fail "no man page"
[ -s "$root/usr/share/bash-completion/completions/tputrain" ] || fail "no bash completion"
[ -s "$root/usr/share/zsh/vendor-completions/_tputrain" ] || fail "no zsh completion"
if command -v man >/dev/null; then
  MANPAGER=cat man -l "$root/usr/share/man/man1/tputrain.1" 2>/dev/null | grep -q "tputrain cluster create" ||
    fail "the man page does not render"
fi
if command -v file >/dev/null && file "$bin" | grep -q "not stripped"; then fail "the packaged binary is not stripped"; fi
echo "package_test: ok"
