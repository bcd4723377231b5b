#!/usr/bin/env bash
# Sets up a Debian 12 machine for readerd: installs what is missing, builds, and reads the
# sample files in samples/ with the one-shot CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

readerd_install $READERD_BUILD_PKGS $READERD_TEST_PKGS
readerd_npm_install
[ -d build ] || meson setup build >/dev/null
ninja -C build
echo
echo "\$ build/daemon/readerd read samples/hello.c samples/readerd.png"
status=0
build/daemon/readerd read samples/hello.c samples/readerd.png | cut -c1-200 || status=$?
echo "(exit status $status)"
