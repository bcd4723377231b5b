#!/usr/bin/env bash
# Runs every test: the unit, integration and fuzz-corpus suites and the wire-contract checks,
# once on a plain build and once under AddressSanitizer + UndefinedBehaviorSanitizer, then the
# integration suite under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

readerd_install $READERD_BUILD_PKGS $READERD_TEST_PKGS
readerd_npm_install

run_suite() {
  local dir=$1; shift
  echo "=== $dir"
  [ -d "$dir" ] || meson setup "$dir" "$@" >/dev/null
  ninja -C "$dir"
  meson test -C "$dir" -v --print-errorlogs
}

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
# GLib's slice allocator hides memory from LeakSanitizer and ThreadSanitizer: every run allocates
# with malloc (tests/meson.build sets the same for meson test run by hand).
export G_SLICE=always-malloc G_DEBUG=gc-friendly
run_suite build
run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false
# Races inside the uninstrumented libraries only are suppressed (tests/tsan.supp).
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp" \
  run_suite build-tsan -Db_sanitize=thread -Db_lundef=false

# The VS Code extension: its unit tests against the daemon built above, then the tests inside a
# real VS Code (code-server and Chromium; the heavy install is cached outside the repository).
echo "=== vscode-client"
scripts/vscode-test.sh
