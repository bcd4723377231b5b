#!/bin/sh
# Meson test: the official MCP conformance framework's server scenarios that apply to a file
# server, against `readerd mcp` behind supergateway (conformance.mjs). Skipped (exit 77), with
# the reason, when node or the npm packages are missing; they are installed with
#   npm ci --prefix tests/mcp --no-audit --no-fund
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (needed to run the MCP conformance framework)"
  exit 77
fi
for pkg in @modelcontextprotocol/conformance/package.json supergateway/package.json; do
  if [ ! -e "$here/node_modules/$pkg" ]; then
    echo "SKIP: tests/mcp/node_modules/$pkg is missing;" \
      "run: npm ci --prefix tests/mcp --no-audit --no-fund"
    exit 77
  fi
done
exec node --test --test-reporter=spec --test-timeout=120000 "$here/conformance.mjs"
