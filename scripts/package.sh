#!/usr/bin/env bash
# Builds the readerd .deb (debian/) and the VS Code extension's .vsix (vscode-client/) into a
# folder:
#
#   scripts/package.sh [OUTDIR]        # default build-deb/; prints the .deb's and the .vsix's paths last
#   DEB_BUILD_OPTIONS=nocheck scripts/package.sh   # without the unit suite (faster)
#   READERD_NO_VSIX=1 scripts/package.sh           # the .deb only (no Node.js needed)
#
# The .vsix holds the extension only, for every platform: the daemon comes from the .deb, whose
# Depends pull in the libraries it links (libuv, poppler, libgit2, libarchive, ...), which an
# extension package cannot.
#
# The source tree is copied (the files git knows, without vscode-client/ and build folders)
# to a staging folder inside OUTDIR, so the build leaves nothing in the tree; then
# `dpkg-buildpackage -b` builds it with the Build-Depends installed on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
out=$(realpath -m "${1:-build-deb}")

for tool in dpkg-buildpackage dh; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool is missing; install dpkg-dev and debhelper" >&2
    exit 1
  fi
done
mkdir -p "$out"
stage=$(mktemp -d "$out/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/readerd"

# What git tracks, plus new files it does not ignore; a tree without git is copied whole.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$src" ls-files -z --cached --others --exclude-standard -- . ':!vscode-client' |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar -C "$src" --null -T - -cf - | tar -C "$stage/readerd" -xf -
else
  tar -C "$src" --exclude='./build*' --exclude=./vscode-client --exclude=./.git -cf - . |
    tar -C "$stage/readerd" -xf -
fi

echo "dpkg-buildpackage -b in $stage/readerd (DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-})"
profiles=""
case " ${DEB_BUILD_OPTIONS:-} " in *" nocheck "*) profiles="-Pnocheck" ;; esac
(cd "$stage/readerd" && dpkg-buildpackage -b -us -uc $profiles >"$stage/build.log" 2>&1) || {
  tail -n 60 "$stage/build.log" >&2
  echo "error: dpkg-buildpackage failed; the whole log was $stage/build.log" >&2
  exit 1
}
cp "$stage/build.log" "$out/dpkg-buildpackage.log"
for f in "$stage"/*.deb "$stage"/*.buildinfo "$stage"/*.changes; do
  [ -e "$f" ] && mv -f "$f" "$out/"
done
deb=$(ls "$out"/readerd_*.deb | grep -v dbgsym | tail -n 1)

vsix=""
if [ -z "${READERD_NO_VSIX:-}" ]; then
  command -v npm >/dev/null 2>&1 || { echo "error: npm is missing (apt install nodejs npm), or set READERD_NO_VSIX=1" >&2; exit 1; }
  version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$src/vscode-client/package.json" | head -n 1)
  echo "npm run package in vscode-client (readerd-$version.vsix)"
  (cd "$src/vscode-client" &&
    { [ -f node_modules/.package-lock.json ] && [ ! package-lock.json -nt node_modules/.package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; } &&
    npm run --silent package >"$out/vsce.log" 2>&1) || {
    tail -n 40 "$out/vsce.log" >&2
    echo "error: building the .vsix failed; the whole log is $out/vsce.log" >&2
    exit 1
  }
  vsix=$out/readerd-$version.vsix
  cp "$src/vscode-client/dist/readerd.vsix" "$vsix"
fi
echo "$deb"
[ -n "$vsix" ] && echo "$vsix"
exit 0
