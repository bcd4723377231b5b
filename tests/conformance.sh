#!/bin/sh
# Runs the wire-contract checks against the built binary, when the contract's script is beside
# the repository (../shared/conformance) or named by READERD_CONFORMANCE. Exit 77 (skipped, said
# so) when it or python3 is missing.
conf="${READERD_CONFORMANCE:-$READERD_SOURCE_ROOT/../shared/conformance/readerd-conformance}"
if [ ! -x "$conf" ]; then
  echo "SKIP: no conformance script at $conf (set READERD_CONFORMANCE to run it from elsewhere)"
  exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 is not installed (needed by $conf)"
  exit 77
fi
exec python3 "$conf" --readerd "$READERD" --only "${READERD_CONFORMANCE_SECTIONS:-core,pdf,images}"
