#!/usr/bin/env bash
# Tests the VS Code extension in vscode-client/: its unit tests against the real readerd binary,
# then the tests inside a real VS Code (code-server from npm, driven by Debian's Chromium through
# playwright-core; see vscode-client/README.md). Installs what is missing: Debian's chromium and
# libkrb5-dev with apt-get, and Node 24, code-server and playwright-core from npm into a cache
# outside the repository (~/.cache/readerd-vscode, or $READERD_VSCODE_CACHE), reused next time.
#
#   READERD=PATH   the readerd binary to test with (default: build/daemon/readerd, built here)
#   READERD_E2E_DIR, READERD_SCREENSHOTS
#                  the VS Code tests' scratch folder and screenshots (default: in the cache), so
#                  two checkouts can run them at once
#
# Ends with a line "N passed, M failed"; exit status 0 only when every test passed.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
. scripts/deps.sh

CACHE=${READERD_VSCODE_CACHE:-$HOME/.cache/readerd-vscode}
NODE_MAJOR=24
CODE_SERVER_VERSION=4.139.1
EXT=$REPO/vscode-client
mkdir -p "$CACHE"

step() { echo "=== $*"; }

# --- machine packages -------------------------------------------------------------------------
readerd_install $READERD_BUILD_PKGS chromium libkrb5-dev
command -v npm >/dev/null 2>&1 || readerd_install nodejs npm

# --- cached tools: Node 24, code-server, playwright-core ---------------------------------------
# Each lives in its own folder, marked complete by a stamp file written after a good install.
cached_install() { # DIR STAMP PACKAGE [npm options...]
  local dir=$1 stamp=$2 pkg=$3; shift 3
  [ -f "$dir/$stamp" ] && return 0
  step "installing $pkg into $dir (cached for later runs)"
  rm -rf "$dir"
  mkdir -p "$dir"
  echo '{"private": true}' > "$dir/package.json"
  (cd "$dir" && npm install --no-save --no-audit --no-fund "$@" "$pkg" > install.log 2>&1) || {
    tail -30 "$dir/install.log" >&2
    echo "error: installing $pkg failed; log in $dir/install.log" >&2
    exit 1
  }
  touch "$dir/$stamp"
}

cached_install "$CACHE/node" ".ok-node$NODE_MAJOR" "node@$NODE_MAJOR"
NODE_HOME=$(ls -d "$CACHE"/node/node_modules/node/node_modules/node-linux-* 2>/dev/null | head -1)
if [ -z "$NODE_HOME" ] || [ ! -x "$NODE_HOME/bin/node" ]; then
  echo "error: no Node $NODE_MAJOR binary under $CACHE/node; remove that folder and run again" >&2
  exit 1
fi
# Node 24 first on PATH (code-server refuses older ones), native modules built against its headers.
export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"
echo "node $(node --version), npm $(npm --version 2>/dev/null)"

cached_install "$CACHE/code-server" ".ok-$CODE_SERVER_VERSION" "code-server@$CODE_SERVER_VERSION" --foreground-scripts
cached_install "$CACHE/playwright" ".ok" "playwright-core"
CODE_SERVER=$CACHE/code-server/node_modules/code-server

# --- readerd ----------------------------------------------------------------------------------
if [ -z "${READERD:-}" ]; then
  step "building readerd"
  [ -d build ] || meson setup build >/dev/null
  ninja -C build daemon/readerd daemon/readerd-worker # the worker reads PDFs and pictures
  READERD=$REPO/build/daemon/readerd
fi
READERD=$(readlink -f "$READERD")
[ -x "$READERD" ] || { echo "error: $READERD is not an executable" >&2; exit 1; }
export READERD
echo "readerd: $READERD ($("$READERD" --version))"

# --- the extension ----------------------------------------------------------------------------
cd "$EXT"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci (vscode-client)"
  npm ci --no-audit --no-fund
fi

passed=0
failed=0
status=0
LOG=$(mktemp -d)
trap 'rm -rf "$LOG"' EXIT

step "unit tests (node --test, real readerd)"
npm run --silent compile-tests
set +e
node --test --test-timeout=60000 --test-reporter=spec out/test/unit/*.test.js 2>&1 | tee "$LOG/unit.txt"
unit_status=${PIPESTATUS[0]}
set -e
unit_pass=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$LOG/unit.txt" | tail -1)
unit_fail=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$LOG/unit.txt" | tail -1)
unit_cancelled=$(sed -n 's/^ℹ cancelled \([0-9]*\)$/\1/p' "$LOG/unit.txt" | tail -1)
passed=$((passed + ${unit_pass:-0}))
failed=$((failed + ${unit_fail:-0} + ${unit_cancelled:-0}))
if [ "$unit_status" != 0 ]; then
  status=1
  [ "${unit_fail:-0}" = 0 ] && [ "${unit_cancelled:-0}" = 0 ] && failed=$((failed + 1))
fi

step "package (npm run package: typecheck, esbuild bundle, vsce)"
if npm run --silent package > "$LOG/package.txt" 2>&1; then
  grep -E 'DONE|WARNING' "$LOG/package.txt" || true
  passed=$((passed + 1))
  echo "ok - npm run package"
else
  cat "$LOG/package.txt"
  echo "not ok - npm run package"
  failed=$((failed + 1))
  status=1
fi

if [ -f dist/readerd.vsix ] && [ -f out/test/suite/index.js ]; then
  step "tests in VS Code (code-server $CODE_SERVER_VERSION + $(/usr/bin/chromium --version 2>/dev/null | head -1))"
  set +e
  CODE_SERVER=$CODE_SERVER PLAYWRIGHT=$CACHE/playwright VSIX=$EXT/dist/readerd.vsix \
    E2E_DIR=${READERD_E2E_DIR:-$CACHE/e2e} SCREENSHOTS=${READERD_SCREENSHOTS:-$CACHE/screenshots} CHROMIUM=/usr/bin/chromium \
    timeout 1200 node test/e2e/run.mjs 2>&1 | tee "$LOG/e2e.txt"
  e2e_status=${PIPESTATUS[0]}
  set -e
  e2e_line=$(sed -n 's/^# vscode: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$LOG/e2e.txt" | tail -1)
  if [ -n "$e2e_line" ]; then
    passed=$((passed + ${e2e_line% *}))
    failed=$((failed + ${e2e_line#* }))
  fi
  if [ "$e2e_status" != 0 ]; then
    status=1
    [ -z "$e2e_line" ] && failed=$((failed + 1))
  fi
  echo "screenshots: ${READERD_SCREENSHOTS:-$CACHE/screenshots}"
fi

[ "$failed" -gt 0 ] && status=1
echo
echo "$passed passed, $failed failed"
exit $status
