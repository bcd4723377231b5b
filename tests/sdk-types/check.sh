#!/bin/sh
# Meson test: type-checks real `readerd read --format anthropic|openai` outputs against the
# official SDK types (check.mjs). Skipped (exit 77) only when node or the npm packages are
# missing; they are installed with
#   npm ci --prefix tests/sdk-types --no-audit --no-fund
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: node is not installed (needed to type-check the anthropic and openai formats)"
  exit 77
fi
for pkg in typescript/bin/tsc @anthropic-ai/sdk/package.json openai/package.json; do
  if [ ! -e "$here/node_modules/$pkg" ]; then
    echo "SKIP: tests/sdk-types/node_modules/$pkg is missing;" \
      "run: npm ci --prefix tests/sdk-types --no-audit --no-fund"
    exit 77
  fi
done
exec node "$here/check.mjs"
