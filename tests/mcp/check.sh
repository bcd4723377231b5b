#!/bin/sh
# Meson test: `readerd mcp` driven through the official MCP TypeScript SDK clients (v1 and v2) and the MCP
# Inspector CLI (mcp.test.mjs, features.test.mjs; node's own test runner). Skipped (exit 77) only when node or the
# npm packages are missing; they are installed with
#   npm ci --prefix tests/mcp --no-audit --no-fund
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (needed to drive readerd mcp through the MCP SDK)"
  exit 77
fi
for pkg in @modelcontextprotocol/sdk/package.json @modelcontextprotocol/inspector-cli/package.json ajv/package.json; do
  if [ ! -e "$here/node_modules/$pkg" ]; then
    echo "SKIP: tests/mcp/node_modules/$pkg is missing;" \
      "run: npm ci --prefix tests/mcp --no-audit --no-fund"
    exit 77
  fi
done
if [ ! -d /usr/share/go-1.19/src ]; then
  echo "SKIP: /usr/share/go-1.19/src is missing (install golang-1.19-src)"
  exit 77
fi
exec node --test --test-reporter=spec --test-timeout=120000 "$here/mcp.test.mjs" "$here/features.test.mjs"
